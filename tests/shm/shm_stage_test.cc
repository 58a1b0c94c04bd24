// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// allreduce shm_stage (shm_coll/allreduce_shm_stage.cc) end to end: real ranks under
// nexrun on one host, the algorithm forced, slot_probe's scenarios (slot_probe.cc says what
// each checks). Its three input paths: staged in the shared segment (the default), read by
// CMA (NEXAR_SHM_STAGE_BYTES=0), and chunks of one page (many claims, races between the
// claimers). The counts scenario alternates sizes, so the segment grows under the ranks
// and later results land where earlier staged inputs were.
#include <catch.hpp>

#include "shm/slot_checks.h"

using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {

const char* const kStage = "NEXAR_ALGO=allreduce:shm_stage,broadcast:shm_flat,barrier:shm_flat";

slot_test::Run run(int np, const std::string& scenario, std::vector<std::string> env,
                   std::chrono::milliseconds timeout = 120s) {
  env.push_back(kStage);
  return slot_test::run(np, scenario, env, timeout);
}

}  // namespace

TEST_CASE("shm_stage: counts, dtypes, in place, identical bits on 1-8 ranks", "[shm][slots][stage]") {
  for (int np : slot_test::kWorlds) {
    INFO("np " << np);
    expect_ok(run(np, "counts", {}), np, "counts ok");
  }
}

TEST_CASE("shm_stage: inputs read by CMA, and one-page chunks", "[shm][slots][stage]") {
  for (int np : {2, 5}) {
    INFO("np " << np);
    expect_ok(run(np, "counts", {"NEXAR_SHM_STAGE_BYTES=0"}), np, "counts ok");
    expect_ok(run(np, "counts", {"NEXAR_SHM_STAGE_CHUNK=4096"}), np, "counts ok");
  }
}

TEST_CASE("shm_stage: ranks that disagree all get NEXAR_ERR_MISMATCH", "[shm][slots][stage][errors]") {
  for (const char* what : {"count", "dtype", "op"}) {
    INFO(what);
    slot_test::check_mismatch(run(3, std::string("mismatch:") + what, {}, 60s));
  }
}

TEST_CASE("shm_stage: ranks waiting long for a late one are woken by its arrival, not a timeout",
          "[shm][slots][stage]") {
  // 5 ranks: more than cores on the CI machines, so the waits sleep at once after the
  // first long ones (shm_coll/crowded_wait.h); elsewhere they spin, then sleep.
  slot_test::Run r = run(5, "late", {});
  expect_ok(r, 5, "late ok");
  INFO(r.out);
  const std::vector<double> worst = launcher_test::decimals_after(r.out, "max_ms=");
  REQUIRE(worst.size() == 4);
  // Each call waits ~20 ms for the late rank; a ring that missed a sleeper would leave it
  // to its one-second re-check.
  for (double ms : worst) CHECK(ms < 700);
}

TEST_CASE("shm_stage: a rank killed during the allreduce is an error on the others within seconds",
          "[shm][slots][stage][fault]") {
  for (int np : {2, 4}) slot_test::check_killed(run(np, "kill", {"BIG=1"}, 60s), np);
}

TEST_CASE("shm_stage on split and dup children: exact, segments freed at destroy, areas lent again",
          "[shm][slots][stage][split]") {
  expect_ok(run(8, "split", {"STAGE_EXPECTED=1"}), 8, "split ok");
}
