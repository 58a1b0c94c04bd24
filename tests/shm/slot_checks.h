// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the slot-collective tests share: running slot_probe (slot_probe.cc says what each
// scenario checks) under nexrun with an algorithm forced, and the checks of its error
// scenarios, so every algorithm is held to the same bar.
#pragma once

#include <catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "launcher/rank_run.h"

namespace slot_test {

using Run = launcher_test::RankRun;
using namespace std::chrono_literals;

// The worlds of the exactness sweeps; under sanitizers one rank, a world that is not a
// power of two and the largest.
#ifdef NEXAR_TEST_SANITIZED
inline constexpr int kWorlds[] = {1, 3, 8};
#else
inline constexpr int kWorlds[] = {1, 2, 3, 4, 8};
#endif

// slot_probe SCENARIO on np ranks with env (NEXAR_ALGO=... among it), a 30 s collective
// timeout, the other ranks left running when one fails (the fault scenarios need them).
inline Run run(int np, const std::string& scenario, std::vector<std::string> env,
               std::chrono::milliseconds timeout = 120s) {
  env.push_back("NEXAR_TIMEOUT=30");
  return launcher_test::run_ranks(np, {SLOT_PROBE, scenario}, env, {"--no-kill"}, timeout);
}

// "mismatch:<what>" on 3 ranks: every rank reports NEXAR_ERR_MISMATCH naming both calls.
inline void check_mismatch(const Run& r) {
  launcher_test::expect_ok(r, 3, "mismatch NEXAR_ERR_MISMATCH");
  CHECK(launcher_test::count_of(r.out, "called allreduce") >= 3);
}

// "kill" on np ranks: every survivor gets an error (never a timeout) within 3 s.
inline void check_killed(const Run& r, int np) {
  INFO("np " << np << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(launcher_test::count_of(r.out, "kill NEXAR_ERR_") == static_cast<size_t>(np - 1));
  CHECK(launcher_test::count_of(r.out, "kill NEXAR_ERR_TIMEOUT") == 0);
  for (double s : launcher_test::numbers_after(r.out, "after ")) CHECK(s < 3);
}

}  // namespace slot_test
