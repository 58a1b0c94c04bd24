// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Failure detection on one host (docs/architecture.md "Failure"): a rank SIGKILLed or
// SIGSTOPped under nexrun --no-kill (the survivors keep running), over shared memory and
// over QUIC forced on one host. Every survivor waits in a receive from the victim and
// prints how long it took to learn of the loss (tests/integration/detect_probe.cc).
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::decimals_after;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

Run detect(int np, const std::string& mode, std::vector<std::string> env) {
  env.push_back("NEXAR_TIMEOUT=30");  // nothing here may wait for the generic timeout
  env.push_back("NEXAR_DEBUG=WARN");
  return launcher_test::run_ranks(np, {DETECT_PROBE, mode}, env, {"--no-kill"}, 60s);
}

// Every survivor learned within [lo, hi] seconds and carried on, and `why` was said (in an
// error, or a warning: a survivor may hear of the loss first from another one's report).
std::vector<double> check_survivors(const Run& r, int survivors, double lo, double hi, const std::string& why) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(count_of(r.out, "lost NEXAR_ERR_PEER_LOST after ") == static_cast<size_t>(survivors));
  CHECK(count_of(r.out + r.err, why) >= 1);
  CHECK(count_of(r.out, "survivors ok") == static_cast<size_t>(survivors));
  const std::vector<double> s = decimals_after(r.out, "lost NEXAR_ERR_PEER_LOST after ");
  for (double t : s) {
    CHECK(t >= lo);
    CHECK(t <= hi);
  }
  std::printf("%s: detected after", why.c_str());
  for (double t : s) std::printf(" %.2f", t);
  std::printf(" s\n");
  return s;
}

}  // namespace

TEST_CASE("a killed rank is seen by every survivor at once over shared memory", "[detect][shm]") {
  // A peer timeout far away: only the exit watch can be this fast.
  Run r = detect(3, "kill", {"NEXAR_PEER_TIMEOUT=30"});
  check_survivors(r, 2, 0, 1.5, "(pid");
  CHECK(count_of(r.out, "same host) exited") == 2);
  CHECK(r.end.exit_code == 137);
}

TEST_CASE("a killed rank is seen by every survivor at once over QUIC on one host", "[detect][quic]") {
  // Without the exit watch the loss would show at the next keep-alive (10 s) or later.
  Run r = detect(3, "kill", {"NEXAR_TRANSPORT=quic", "NEXAR_PEER_TIMEOUT=30", "NEXAR_KEEPALIVE=10"});
  check_survivors(r, 2, 0, 1.5, "same host) exited");
  CHECK(r.end.exit_code == 137);
}

TEST_CASE("a stopped rank is declared failed after the peer timeout and killed (shared memory)", "[detect][shm]") {
  Run r = detect(3, "stop", {"NEXAR_PEER_TIMEOUT=1.5"});
  check_survivors(r, 2, 1.4, 5, "made no progress for");
  // The fence: the victim never resumed (SIGCONT came after its SIGKILL).
  CHECK(count_of(r.out, "resumed") == 0);
  CHECK(r.end.exit_code == 137);
}

TEST_CASE("a stopped rank is declared failed after the peer timeout over QUIC and cannot come back", "[detect][quic]") {
  Run r = detect(3, "stop", {"NEXAR_TRANSPORT=quic", "NEXAR_PEER_TIMEOUT=1.5"});
  check_survivors(r, 2, 1.4, 5, "no packet from");
  // Resumed by SIGCONT, the victim finds its connections gone: nothing reaches anyone.
  CHECK(count_of(r.out, "resumed, recv NEXAR_ERR_PEER_LOST") == 1);
  CHECK(r.end.exit_code == 0);
}

TEST_CASE("a killed rank is seen by every survivor at once over TCP on one host", "[detect][tcp]") {
  // The kernel ends the dead process's connections: no keep-alive needed.
  Run r = detect(3, "kill", {"NEXAR_TRANSPORT=tcp", "NEXAR_PEER_TIMEOUT=30", "NEXAR_KEEPALIVE=10"});
  check_survivors(r, 2, 0, 1.5, "rank 2");
  CHECK(r.end.exit_code == 137);
}

TEST_CASE("a stopped rank is declared failed after the peer timeout over TCP and cannot come back", "[detect][tcp]") {
  Run r = detect(3, "stop", {"NEXAR_TRANSPORT=tcp", "NEXAR_PEER_TIMEOUT=1.5"});
  check_survivors(r, 2, 1.4, 5, "sent nothing over TCP for");
  // Resumed by SIGCONT, the victim finds its connections closed: nothing reaches anyone.
  CHECK(count_of(r.out, "resumed, recv NEXAR_ERR_PEER_LOST") == 1);
  CHECK(r.end.exit_code == 0);
}
