// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/exit_reason.h"

#include <sys/wait.h>

#include <cstring>

#include "core/status.h"

namespace nexar::launcher {

std::string describe_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return strprintf("exited with status %d", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* name = strsignal(sig);
    return strprintf("killed by signal %d (%s)%s", sig, name ? name : "unknown",
                     WCOREDUMP(wait_status) ? ", core dumped" : "");
  }
  return strprintf("ended with wait status 0x%x", wait_status);
}

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

bool is_failure(int wait_status) { return exit_code_of(wait_status) != 0; }

}  // namespace nexar::launcher
