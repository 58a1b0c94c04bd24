// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Remote procedure calls end to end: rpc_probe's scenarios under nexrun, on shared memory
// and on QUIC; a target whose handler ends its process.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {
launcher_test::RankRun run(int np, const std::string& scenario, const std::vector<std::string>& env = {},
                           const std::vector<std::string>& opts = {}) {
  return launcher_test::run_ranks(np, {RPC_PROBE, scenario}, env, opts, 60s);
}
}  // namespace

TEST_CASE("remote procedure calls on shared memory", "[rpc]") { expect_ok(run(3, "all"), 3, "rpc ok"); }

TEST_CASE("remote procedure calls over QUIC", "[rpc]") {
  expect_ok(run(3, "all", {"NEXAR_TRANSPORT=quic"}), 3, "rpc ok");
}

TEST_CASE("a call to a target that dies gives NEXAR_ERR_PEER_LOST", "[rpc]") {
  for (const char* transport : {"auto", "quic"}) {
    auto r = run(2, "dead", {std::string("NEXAR_TRANSPORT=") + transport, "NEXAR_TIMEOUT=30", "NEXAR_PEER_TIMEOUT=30"},
                 {"--no-kill"});
    INFO(transport << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.end.finished);
    CHECK(count_of(r.out, "rank 0: dead ok") == 1);
  }
}
