// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the launcher told this process: rank, size, where the rendezvous is and which
// credential to use. Read from nexrun's NEXAR_* variables; else, inside an srun step,
// from SLURM's (slurm_direct.h); with none, a world of one (an error when WORLD_SIZE says
// the process is one of several: nexar_init_rank is their way). nexar_init_rank fills one
// from its unique id instead (unique_id_job.h).
#pragma once

#include <memory>
#include <string>

#include "core/status.h"

namespace nexar::bootstrap {

struct LaunchInfo {
  bool singleton = true;  // no launcher: a world of one rank
  int rank = 0, world_size = 1;
  int local_rank = 0, local_size = 1;
  int node_rank = 0, num_nodes = 1;
  std::string job_id;
  std::string rendezvous;   // "ip:port"
  std::string credentials;  // path of this rank's credential file
  int incarnation = 0;      // NEXAR_RESTART_COUNT: > 0 in a replacement or a gang restart
  // nexar_init_rank (unique_id_job.h): the credential is issued in memory, the world first
  // checks that ranks and sizes agree, and the rendezvous this process serves for the
  // job (if it does) lives as long as the worlds built from this info.
  std::string credential_pem;  // when set, used instead of the credentials file
  bool unique_id_join = false;
  std::shared_ptr<void> rendezvous_host;
};

// NEXAR_ERR_INVALID_ARGUMENT naming the variable when the environment is inconsistent.
Status read_launch_env(LaunchInfo* out);

}  // namespace nexar::bootstrap
