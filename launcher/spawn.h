// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Starts one rank: its own process group (so a signal reaches the processes it starts),
// stdin from /dev/null, stdout and stderr into pipes read by nexrun, and
// PR_SET_PDEATHSIG(SIGKILL) so the rank dies if nexrun dies. Call from the main thread
// only: the death signal follows the thread that forked.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::launcher {

struct SpawnSpec {
  std::string path;               // resolved program (find_program)
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // "NAME=value"
  bool stdin_pipe = false;        // stdin from a pipe nexrun writes (launch agents), not /dev/null
  std::vector<int> cpus;          // bound to these CPUs before exec (binding.h); empty: not bound
};

struct SpawnedRank {
  pid_t pid = -1;   // also its process group id
  int out_fd = -1;  // read ends, non-blocking, close-on-exec
  int err_fd = -1;
  int in_fd = -1;   // write end of stdin when stdin_pipe (blocking, close-on-exec)
};

// Returns once the program was exec'd (or failed to be: the child is reaped and the
// error names errno). *exec_errno is set when exec itself failed. A binding the kernel
// refuses is an error naming the CPUs.
Status spawn_rank(const SpawnSpec& spec, SpawnedRank* out, int* exec_errno);

}  // namespace nexar::launcher
