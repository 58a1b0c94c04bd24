// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Finds the program to run before any rank starts, so a missing or non-executable binary
// is one clear error and no half-started job.
#pragma once

#include <string>

namespace nexar::launcher {

struct ProgramLookup {
  std::string path;   // absolute or as given (contains '/'), when found
  std::string error;  // empty when found: "cannot run 'x': not found in PATH"
  int exit_code = 0;  // 127 not found, 126 not executable (the shell's codes)
};

// name with a '/' is used as is; otherwise searched in path_env (PATH; empty: /usr/bin:/bin).
ProgramLookup find_program(const std::string& name, const std::string& path_env);

// The path of the running executable (nexrun itself, to re-execute as agent or janitor).
std::string running_executable();

}  // namespace nexar::launcher
