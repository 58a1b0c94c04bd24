// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A job started without nexrun (nexar_get_unique_id / nexar_init_rank, docs/architecture.md
// "Starting without nexrun"). The process that makes the id plays the launcher's part: it
// makes the job's CA and serves the rendezvous itself, until the world it joins with that
// id is destroyed (or until it exits, when it joins none: then up to 3 s longer while
// other processes are still inside their join, so they read why it failed). Every process
// that joins issues its own rank certificate from the CA key in the id, in memory.
#pragma once

#include "bootstrap/launch_env.h"
#include "bootstrap/unique_id.h"
#include "core/status.h"

namespace nexar::bootstrap {

// A fresh job: id, CA key, and its rendezvous served by this process on the address
// NEXAR_ADDR / NEXAR_IFACE / NEXAR_ADDR_CIDR select, else this host's first non-loopback
// address, else loopback.
Status make_unique_id(UniqueId* out);

// Who this process is in id's job. NEXAR_ERR_INVALID_ARGUMENT for a rank outside [0, size)
// or a size below 1. When this process serves id's rendezvous, info holds it: the world
// built from info keeps it alive.
Status unique_id_launch(const UniqueId& id, int rank, int size, LaunchInfo* out);

// The world of id's job formed here: the rendezvous this process serves for it (if any)
// now lives as long as that world. Until then a failed nexar_init_rank keeps it serving.
void unique_id_world_formed(const std::string& job_id);

}  // namespace nexar::bootstrap
