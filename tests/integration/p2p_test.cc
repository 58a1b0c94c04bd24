// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Point to point end to end: real ranks started by nexrun, talking over QUIC on loopback.
#include <catch.hpp>

#include "integration/p2p_expect.h"
#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

Run run_probe(int np, const std::string& scenario, const std::vector<std::string>& env = {},
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
  REQUIRE(out.find("rank 0 of 1: basic ok token 1000 self 42 local 0 of 1\n") != std::string::npos);
}

TEST_CASE("ring, self-send and barriers on 2, 3 and 4 ranks", "[p2p]") {
  for (int np : {2, 3, 4}) p2p_expect::basic(run_probe(np, "basic"), np);
}

TEST_CASE("messages of 0 bytes to 64 MiB arrive intact", "[p2p]") {
  for (int np : {2, 3}) p2p_expect::sizes(run_probe(np, "sizes"), np);
}

TEST_CASE("order per pair and tag, ANY_SOURCE and ANY_TAG", "[p2p]") { expect_ok(run_probe(2, "order"), 2, "order ok"); }

TEST_CASE("unexpected messages past the store's limit hold the sender back", "[p2p]") {
  expect_ok(run_probe(2, "unexpected", {"NEXAR_UNEXPECTED_LIMIT=4194304"}), 2, "unexpected ok");
}

TEST_CASE("local argument errors are named and leave the communicator usable", "[p2p]") {
  const int np = 3;
  Run r = run_probe(np, "errors");
  p2p_expect::ended_cleanly(r);
  INFO("stdout:\n" << r.out);
  // The call, its result, a word its error text must hold ("" for none: the text is gone).
  struct Refusal {
    const char* call;
    const char* result;
    const char* text;
  };
  const Refusal refusals[] = {
      {"send to rank size", "NEXAR_ERR_INVALID_ARGUMENT", "peer 3"},
      {"send NULL", "NEXAR_ERR_INVALID_ARGUMENT", "NULL"},
      {"send dtype 99", "NEXAR_ERR_INVALID_ARGUMENT", "dtype 99"},
      {"send tag -5", "NEXAR_ERR_INVALID_ARGUMENT", "tag -5"},
      {"recv from rank -7", "NEXAR_ERR_INVALID_ARGUMENT", "-7"},
      {"set_timeout -1", "NEXAR_ERR_INVALID_ARGUMENT", "-1"},
      {"send SIZE_MAX/16", "NEXAR_ERR_INVALID_ARGUMENT", "count 1152921504606846975"},
      {"recv SIZE_MAX/16", "NEXAR_ERR_INVALID_ARGUMENT", "count 1152921504606846975"},
      {"isend SIZE_MAX/2", "NEXAR_ERR_INVALID_ARGUMENT", "count 9223372036854775807"},
      {"irecv SIZE_MAX/16 float64", "NEXAR_ERR_INVALID_ARGUMENT", "count 1152921504606846975 x 8 bytes"},
      {"dup: send to rank size", "NEXAR_ERR_INVALID_ARGUMENT", "peer 3"},
      {"dup: destroy", "NEXAR_SUCCESS", ""},
      {"destroyed: allreduce", "NEXAR_ERR_INVALID_ARGUMENT", "destroyed"},
      {"destroyed: send", "NEXAR_ERR_INVALID_ARGUMENT", "destroyed"},
      {"destroyed: comm_rank", "NEXAR_ERR_INVALID_ARGUMENT", "destroyed"},
      {"destroyed: revoke", "NEXAR_ERR_INVALID_ARGUMENT", "destroyed"},
      {"destroyed: destroy", "NEXAR_ERR_INVALID_ARGUMENT", "destroyed"},
  };
  for (const Refusal& e : refusals) {
    const std::vector<std::string> lines = p2p_expect::lines_with(r.out, std::string("errors: ") + e.call + " -> ");
    INFO(e.call);
    REQUIRE(lines.size() == np);
    for (const std::string& line : lines) {
      CHECK(line.find(std::string(" -> ") + e.result + ": ") != std::string::npos);
      CHECK(line.find(e.text) != std::string::npos);
    }
  }
  CHECK(count_of(r.out, "errors: request after refusals NULL") == np);
  CHECK(count_of(r.out, "errors: destroyed: comm_rank left -1") == np);
  CHECK(count_of(r.out, "rank 1: errors: recv 2 of 4 int64 -> NEXAR_ERR_INVALID_ARGUMENT: ") == 1);
  CHECK(p2p_expect::lines_with(r.out, "recv 2 of 4 int64")[0].find("longer") != std::string::npos);
  CHECK(count_of(r.out, "errors ok") == np);
}

TEST_CASE("a receive nobody answers times out, and the others are told", "[p2p]") {
  Run r = run_probe(3, "timeout");
  p2p_expect::ended_cleanly(r);
  INFO("stdout:\n" << r.out);
  const std::vector<std::string> recv = p2p_expect::lines_with(r.out, "rank 1: timeout: recv -> NEXAR_ERR_TIMEOUT after ");
  REQUIRE(recv.size() == 1);
  CHECK(recv[0].find("receive from rank 0") != std::string::npos);
  const std::vector<double> after = launcher_test::decimals_after(recv[0], "after ");
  REQUIRE(after.size() == 1);
  CHECK(after[0] >= 0.9);  // its 1 s timeout, not sooner
  CHECK(after[0] < 5);
  CHECK(count_of(r.out, "rank 1: timeout: barrier then -> NEXAR_ERR_ABORTED") == 1);
  // Ranks 0 and 2 learn that rank 1 gave up long before their own 30 s timeout.
  const std::vector<std::string> others = p2p_expect::lines_with(r.out, "timeout: barrier -> ");
  REQUIRE(others.size() == 2);
  for (const std::string& line : others) {
    CHECK(line.find("NEXAR_SUCCESS") == std::string::npos);
    for (double s : launcher_test::decimals_after(line, "after ")) CHECK(s < 20);
  }
}

TEST_CASE("an idle communicator outlives the peer timeout", "[p2p]") {
  expect_ok(run_probe(2, "idle", {"NEXAR_PEER_TIMEOUT=1.5", "NEXAR_KEEPALIVE=0.3"}), 2, "idle ok");
}

TEST_CASE("a dead peer fails every operation that needs it within a few seconds", "[p2p][fault]") {
  Run r = run_probe(3, "peer_lost", {"NEXAR_PEER_TIMEOUT=2"}, {"--no-kill"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(count_of(r.out, "peer_lost NEXAR_ERR_PEER_LOST") == 2);
  for (double s : launcher_test::numbers_after(r.out, "after ")) REQUIRE(s < 5);
  REQUIRE(r.end.exit_code == 137);  // the victim died by SIGKILL; nexrun reports it
}

TEST_CASE("destroying a world broken by a timeout does not wait for the stopped peer again", "[p2p][fault]") {
  for (const char* transport : {"auto", "quic"}) {
    Run r = run_probe(2, "stopped_destroy", {"NEXAR_PEER_TIMEOUT=30", std::string("NEXAR_TRANSPORT=") + transport});
    INFO(transport << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.end.finished);
    CHECK(count_of(r.out, "stopped_destroy ok") == 1);
    CHECK(r.end.exit_code == 137);  // rank 1, killed by rank 0
  }
}

TEST_CASE("nexar_wait does not count the time a collective sat queued", "[p2p]") {
  expect_ok(run_probe(2, "queued_wait"), 2, "queued_wait ok");
}

TEST_CASE("a message above 4 GiB", "[p2p][long]") {
  expect_ok(run_probe(2, "huge", {}, {}, 300s), 2, "huge ok");
}
