// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Messages of unknown size and source, gather/scatter lists and groups (point to point and collectives),
// end to end: msg_probe's scenarios under nexrun, on shared memory and on QUIC, on the
// world and on a split communicator.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {
launcher_test::RankRun run(int np, const std::string& scenario, const std::vector<std::string>& env = {}) {
  return launcher_test::run_ranks(np, {MSG_PROBE, scenario}, env, {}, 90s);
}
}  // namespace

TEST_CASE("probe, statuses, iovecs and groups on shared memory", "[p2p][msg]") {
  auto r = run(3, "all");
  expect_ok(r, 3, "split ok");
}

TEST_CASE("probe, statuses, iovecs and groups over QUIC", "[p2p][msg]") {
  auto r = run(3, "all", {"NEXAR_TRANSPORT=quic"});
  expect_ok(r, 3, "split ok");
}

TEST_CASE("a probe times out like a receive and returns REVOKED when a member revokes", "[p2p][msg]") {
  expect_ok(run(2, "fail"), 2, "fail ok");
}
