// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// How a rank ended, in words and as the exit status nexrun passes on.
#pragma once

#include <string>

namespace nexar::launcher {

// From a waitpid() status: "exited with status 3" / "killed by signal 9 (Killed)".
std::string describe_wait_status(int wait_status);

// The shell's convention: the exit code, or 128 + signal number.
int exit_code_of(int wait_status);

// True when the rank failed: a non-zero exit or death by a signal.
bool is_failure(int wait_status);

}  // namespace nexar::launcher
