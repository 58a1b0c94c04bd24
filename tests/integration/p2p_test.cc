// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Point to point end to end: real ranks started by nexrun, talking over QUIC on loopback.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

Run probe(int np, const std::string& scenario, const std::vector<std::string>& env = {},
          const std::vector<std::string>& extra = {}, std::chrono::milliseconds timeout = 60s) {
  return launcher_test::run_ranks(np, {P2P_PROBE, scenario}, env, extra, timeout);
}

}  // namespace

TEST_CASE("a program started without nexrun is a world of one", "[p2p]") {
  std::string cmd = std::string("env -u NEXAR_RANK -u NEXAR_WORLD_SIZE timeout 20 ") + P2P_PROBE + " basic";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[256] = {0};
  std::string out;
  while (fgets(buf, sizeof buf, p)) out += buf;
  REQUIRE(pclose(p) == 0);
  REQUIRE(out.find("rank 0 of 1: basic ok") != std::string::npos);
}

TEST_CASE("ring, self-send and barriers on 2, 3 and 4 ranks", "[p2p]") {
  for (int np : {2, 3, 4}) {
    Run r = probe(np, "basic");
    expect_ok(r, np, "basic ok");
  }
}

TEST_CASE("messages of 0 bytes to 64 MiB arrive intact", "[p2p]") {
  for (int np : {2, 3}) expect_ok(probe(np, "sizes"), np, "sizes ok");
}

TEST_CASE("order per pair and tag, ANY_SOURCE and ANY_TAG", "[p2p]") { expect_ok(probe(2, "order"), 2, "order ok"); }

TEST_CASE("unexpected messages past the store's limit hold the sender back", "[p2p]") {
  expect_ok(probe(2, "unexpected", {"NEXAR_UNEXPECTED_LIMIT=4194304"}), 2, "unexpected ok");
}

TEST_CASE("local argument errors are named and leave the communicator usable", "[p2p]") {
  expect_ok(probe(3, "errors"), 3, "errors ok");
}

TEST_CASE("a receive nobody answers times out, and the others are told", "[p2p]") {
  Run r = probe(3, "timeout");
  expect_ok(r, 3, "timeout ok");
}

TEST_CASE("an idle communicator outlives the peer timeout", "[p2p]") {
  expect_ok(probe(2, "idle", {"NEXAR_PEER_TIMEOUT=1.5", "NEXAR_KEEPALIVE=0.3"}), 2, "idle ok");
}

TEST_CASE("a dead peer fails every operation that needs it within a few seconds", "[p2p][fault]") {
  Run r = probe(3, "peer_lost", {"NEXAR_PEER_TIMEOUT=2"}, {"--no-kill"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(count_of(r.out, "peer_lost NEXAR_ERR_PEER_LOST") == 2);
  for (double s : launcher_test::numbers_after(r.out, "after ")) REQUIRE(s < 5);
  REQUIRE(r.end.exit_code == 137);  // the victim died by SIGKILL; nexrun reports it
}

TEST_CASE("destroying a world broken by a timeout does not wait for the stopped peer again", "[p2p][fault]") {
  for (const char* transport : {"auto", "quic"}) {
    Run r = probe(2, "stopped_destroy", {"NEXAR_PEER_TIMEOUT=30", std::string("NEXAR_TRANSPORT=") + transport});
    INFO(transport << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.end.finished);
    CHECK(count_of(r.out, "stopped_destroy ok") == 1);
    CHECK(r.end.exit_code == 137);  // rank 1, killed by rank 0
  }
}

TEST_CASE("nexar_wait does not count the time a collective sat queued", "[p2p]") {
  expect_ok(probe(2, "queued_wait"), 2, "queued_wait ok");
}

TEST_CASE("a message above 4 GiB", "[p2p][long]") {
  expect_ok(probe(2, "huge", {}, {}, 300s), 2, "huge ok");
}
