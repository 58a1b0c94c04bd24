// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// `srun ./prog` without nexrun (docs/multihost.md): every task reads its place from SLURM
// (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NODEID, SLURM_NNODES). Task 0 plays the
// launcher's part: it makes the step's job credentials (a CA and a file per rank) in a
// private directory on a filesystem every node shares (NEXAR_SLURM_DIR, default
// $HOME/.nexar, mode 0700), serves the rendezvous itself, and publishes the directory
// atomically (rename) with the rendezvous address in it. The other tasks wait for it
// (NEXAR_CONNECT_TIMEOUT) and load their own credential from it. Task 0 removes it when
// its process exits. The trust is that of the user's home directory (as ~/.ssh).
#pragma once

#include "bootstrap/launch_env.h"
#include "core/status.h"

namespace nexar::bootstrap {

// True inside an srun step started without nexrun (SLURM_PROCID and SLURM_NTASKS set,
// NEXAR_RANK not set).
bool slurm_direct_launch();

// Fills info for this task; task 0 also starts the rendezvous (kept until exit).
Status slurm_direct_setup(LaunchInfo* info);

}  // namespace nexar::bootstrap
