// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/launch_env.h"

#include "bootstrap/slurm_direct.h"
#include "core/params.h"

#include <cstdlib>
#include <string>

namespace nexar::bootstrap {
namespace {

// No launcher nexar knows: a world of one, unless torchrun-style variables say the process
// is one of several (each would silently be alone).
Status not_another_launchers_world() {
  const char* ws = std::getenv("WORLD_SIZE");
  if (!ws || !*ws || std::string(ws) == "1") return Status::Ok();
  return Status(NEXAR_ERR_INVALID_ARGUMENT,
                strprintf("WORLD_SIZE=%s is set, but this process was not started by nexrun (nor by srun): "
                          "nexar_init would make a world of one. Start it under nexrun, or join the others with "
                          "nexar_get_unique_id on one process and nexar_init_rank on each",
                          ws));
}

}  // namespace

Status read_launch_env(LaunchInfo* out) {
  *out = LaunchInfo{};
  // nexrun's variables first; else an srun step without nexrun (slurm_direct.h); else one.
  if (!param::NEXAR_RANK.is_set() && !param::NEXAR_WORLD_SIZE.is_set()) {
    if (!slurm_direct_launch()) return not_another_launchers_world();
    return slurm_direct_setup(out);
  }
  LaunchInfo li;
  li.singleton = false;
  li.rank = static_cast<int>(param::NEXAR_RANK.get());
  li.world_size = static_cast<int>(param::NEXAR_WORLD_SIZE.get());
  li.local_rank = static_cast<int>(param::NEXAR_LOCAL_RANK.get());
  li.local_size = static_cast<int>(param::NEXAR_LOCAL_SIZE.get());
  li.node_rank = static_cast<int>(param::NEXAR_NODE_RANK.get());
  li.num_nodes = static_cast<int>(param::NEXAR_NUM_NODES.get());
  li.job_id = param::NEXAR_JOB_ID.get();
  li.rendezvous = param::NEXAR_RENDEZVOUS.get();
  li.credentials = param::NEXAR_CREDENTIALS.get();
  li.incarnation = static_cast<int>(param::NEXAR_RESTART_COUNT.get());
  if (li.incarnation < 0)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("NEXAR_RESTART_COUNT=%d is negative", li.incarnation));
  if (li.world_size < 1)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("NEXAR_WORLD_SIZE=%d must be at least 1", li.world_size));
  if (li.rank < 0 || li.rank >= li.world_size)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("NEXAR_RANK=%d is outside [0, %d) (NEXAR_WORLD_SIZE)", li.rank, li.world_size));
  if (li.local_size < 1) li.local_size = 1;
  if (li.local_rank < 0) li.local_rank = 0;
  if (li.world_size > 1 && li.rendezvous.empty())
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "NEXAR_RENDEZVOUS is not set");
  if (li.world_size > 1 && li.credentials.empty())
    return Status(NEXAR_ERR_AUTH, "NEXAR_CREDENTIALS is not set: this process has no job credential");
  *out = li;
  return Status::Ok();
}

}  // namespace nexar::bootstrap
