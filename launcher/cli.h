// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun's command line: options -> JobPlan. Option parsing stops at the program name;
// everything after it belongs to the program.
#pragma once

#include "launcher/job_plan.h"

namespace nexar::launcher {

struct CliResult {
  JobPlan plan;
  bool exit_now = false;  // --help, --version, or a usage error: exit with exit_code
  int exit_code = 0;
};

// Parses argv. Help and version text go to stdout, usage errors to stderr (one line
// naming what was wrong, plus a hint to --help).
CliResult parse_command_line(int argc, const char* const* argv);

}  // namespace nexar::launcher
