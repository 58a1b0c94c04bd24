// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// For tests that run a rank program under nexrun and check what every rank printed.
// Include after <catch.hpp>.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "launcher/nexrun_process.h"

namespace launcher_test {

struct RankRun {
  Ended end;
  std::string out, err;
};

// nexrun -np N [nexrun_opts...] program_args..., bounded by timeout.
inline RankRun run_ranks(int np, const std::vector<std::string>& program_args, const std::vector<std::string>& env = {},
                         const std::vector<std::string>& nexrun_opts = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(90)) {
  std::vector<std::string> args = {"-np", std::to_string(np)};
  args.insert(args.end(), nexrun_opts.begin(), nexrun_opts.end());
  args.insert(args.end(), program_args.begin(), program_args.end());
  RankRun r;
  r.end = run_nexrun(args, &r.out, &r.err, timeout, env);
  return r;
}

// The job ended by itself with status 0 and `what` appears `times` times in its stdout.
inline void expect_ok(const RankRun& r, int times, const std::string& what) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(r.end.exit_code == 0);
  REQUIRE(count_of(r.out, what) == static_cast<size_t>(times));
}

}  // namespace launcher_test
