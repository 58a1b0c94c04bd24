// What the launcher told this process: rank, size, where the rendezvous is and which
// credential to use. Read from nexrun's NEXAR_* variables; else, inside an srun step,
// from SLURM's (slurm_direct.h); with none, a world of one.
#pragma once

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
};

// NEXAR_ERR_INVALID_ARGUMENT naming the variable when the environment is inconsistent.
Status read_launch_env(LaunchInfo* out);

}  // namespace nexar::bootstrap
