// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_comm_rebuild with nexrun --respawn: a rank is killed, nexrun starts its replacement
// (NEXAR_RESTART_COUNT=1), the survivors rebuild and the replacement's nexar_init returns
// the same new world; it must be a full world (rebuild_probe's checks). Without a
// replacement, rebuild fails with NEXAR_ERR_PEER_LOST within the communicator's timeout. Two
// ranks lost at once, and a survivor dying inside the rebuild (cascading), with and without
// a replacement for it: every other survivor gets the same outcome.
#include <algorithm>
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::RankRun;
using namespace std::chrono_literals;

namespace {

// The victims ("1" or "1,2") die after a first allreduce; `cascade` (if >= 0) dies as it
// enters the rebuild. --respawn gives every one of them a replacement.
RankRun respawn_run(int np, const std::string& victims, const std::vector<std::string>& env, int cascade = -1) {
  std::vector<std::string> e = {"NEXAR_PEER_TIMEOUT=1"};
  e.insert(e.end(), env.begin(), env.end());
  std::vector<std::string> args = {REBUILD_PROBE, "respawn", victims};
  if (cascade >= 0) args.push_back(std::to_string(cascade));
  const size_t dead = 1 + std::count(victims.begin(), victims.end(), ',') + (cascade >= 0 ? 1 : 0);
  return launcher_test::run_ranks(np, args, e, {"--respawn", std::to_string(dead)}, 90s);
}

// Every rank ends with the full world: the survivors rebuilt it, each replacement joined.
void expect_rebuilt(const RankRun& r, int np, const std::vector<int>& replaced) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(r.end.exit_code == 0);
  for (int v : replaced) {
    CHECK(count_of(r.out, "replacement " + std::to_string(v) + " incarnation 1 joined") == 1);
    CHECK(count_of(r.err, "starting replacement 1 of rank " + std::to_string(v)) == 1);
  }
  CHECK(count_of(r.out, "rebuilt ") == static_cast<size_t>(np) - replaced.size());
  CHECK(count_of(r.out, " ok\n") == static_cast<size_t>(np));
}

}  // namespace

TEST_CASE("rebuild with a replacement on shared memory", "[rebuild]") {
  expect_rebuilt(respawn_run(3, "1", {}), 3, {1});
}

TEST_CASE("rebuild with a replacement of rank 0 on shared memory", "[rebuild]") {
  expect_rebuilt(respawn_run(4, "0", {}), 4, {0});
}

TEST_CASE("rebuild with a replacement over QUIC", "[rebuild]") {
  expect_rebuilt(respawn_run(3, "2", {"NEXAR_TRANSPORT=quic"}), 3, {2});
}

TEST_CASE("rebuild with no replacement fails with PEER_LOST within the timeout", "[rebuild]") {
  RankRun r = launcher_test::run_ranks(3, {REBUILD_PROBE, "alone", "2"}, {"NEXAR_PEER_TIMEOUT=1"},
                                       {"--enable-recovery"}, 60s);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(r.end.exit_code == 0);  // the survivors ended well after the failure
  CHECK(count_of(r.out, "alone ") == 2);
  CHECK(count_of(r.out, "rank 2 neither called nexar_comm_rebuild nor was replaced") == 2);
}

TEST_CASE("two ranks lost at once: both replaced, the world rebuilt", "[rebuild]") {
  expect_rebuilt(respawn_run(4, "1,2", {}), 4, {1, 2});
}

TEST_CASE("a survivor dies inside the rebuild (cascading): its replacement joins too", "[rebuild]") {
  RankRun r = respawn_run(4, "3", {}, 1);
  CHECK(count_of(r.out, "survivor 1 dies in the rebuild") == 1);
  expect_rebuilt(r, 4, {1, 3});
}

TEST_CASE("a survivor dies inside the rebuild with no replacement: the others all get PEER_LOST naming it",
          "[rebuild]") {
  RankRun r = launcher_test::run_ranks(4, {REBUILD_PROBE, "alone", "3", "1"}, {"NEXAR_PEER_TIMEOUT=1"},
                                       {"--enable-recovery"}, 60s);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(count_of(r.out, "survivor 1 dies in the rebuild") == 1);
  CHECK(count_of(r.out, "alone ") == 2);
  CHECK(count_of(r.out, "rank 1 neither called nexar_comm_rebuild nor was replaced") == 2);
}
