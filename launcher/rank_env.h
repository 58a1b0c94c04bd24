// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The environment each rank gets: the launcher's own environment plus the job variables
// of API.md (NEXAR_* and torchrun's names), which replace any inherited value, and, like
// torchrun, OMP_NUM_THREADS=1 where a host runs several ranks (an inherited value wins).
#pragma once

#include <string>
#include <vector>

namespace nexar::launcher {

struct JobEnvironment {
  std::string job_id;
  int world_size = 0;
  std::string rendezvous;                    // "ip:port"
  int master_port = 0;                       // a free TCP port on this host (torchrun's MASTER_PORT)
  std::vector<std::string> credential_files;  // one per rank
  // Many hosts: per rank, its rank on its host, the ranks on that host and the host's
  // index; empty: one host (local rank = rank).
  std::vector<int> local_rank, local_size, node_rank;
  int num_nodes = 1;
  std::string master_addr = "127.0.0.1";  // rank 0's host
  int restart_count = 0;                  // the attempt (--max-restarts); 0 at first
};

// The OpenMP thread count a rank gets (1) when its host runs more than one rank of the job
// and base does not set it.
inline constexpr const char* kOmpThreads = "OMP_NUM_THREADS";

// "NAME=value" strings for rank `rank`, base first (minus the names set here).
std::vector<std::string> rank_environment(const std::vector<std::string>& base, const JobEnvironment& job,
                                          int rank);

// Sets NEXAR_RESTART_COUNT and torchrun's TORCHELASTIC_RESTART_COUNT to k in env
// (replacing earlier values): a replacement's incarnation or a gang restart's attempt.
void set_restart_count(std::vector<std::string>* env, int k);

// This process's environment as "NAME=value" strings.
std::vector<std::string> current_environment();

}  // namespace nexar::launcher
