// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Waiting threads that read the QUIC socket themselves (Endpoint::poll through the
// engine's waiter, NEXAR_QUIC_SPIN_US): real ranks under nexrun, NEXAR_TRANSPORT=quic.
#include <catch.hpp>

#include <thread>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {

launcher_test::RankRun probe(int np, const std::string& scenario, const std::vector<std::string>& env,
                             const std::vector<std::string>& nexrun_opts = {}) {
  std::vector<std::string> all = {"NEXAR_TRANSPORT=quic", "NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=NET"};
  all.insert(all.end(), env.begin(), env.end());
  return launcher_test::run_ranks(np, {QUIC_POLL_PROBE, scenario}, all, nexrun_opts, 240s);
}

// Datagrams the ranks' waiting threads read themselves (world.cc logs it at the end).
long polled(const std::string& err) {
  long sum = 0;
  for (long n : launcher_test::numbers_after(err, "waiting threads read ")) sum += n;
  return sum;
}

// The other counts of that line, summed over the ranks: of those threads' socket reads the
// ones that found nothing, packets sent without stream data (mostly ACKs alone), and the
// progress threads' timerfd wake-ups.
long line_sum(const std::string& err, const std::string& key) {
  long sum = 0;
  for (long n : launcher_test::numbers_after(err, key)) sum += n;
  return sum;
}
long empty_reads(const std::string& err) { return line_sum(err, "themselves ("); }
long bare_packets(const std::string& err) { return line_sum(err, "found none); "); }
long alarms(const std::string& err) { return line_sum(err, "packets without stream data sent; "); }
long bulk_polls(const std::string& err) { return line_sum(err, "progress-thread alarms; "); }

}  // namespace

TEST_CASE("ordered ping-pong, ANY_SOURCE and large messages, with and without the polling wait", "[quic][poll]") {
  // 2 senders x 400 messages, echoed: 1600 messages, every 17th of them 256 KiB on its own
  // stream. Spin 0: the progress thread reads every datagram; a 2 ms spin: the waiting
  // threads read part of the traffic themselves (~3,800 datagrams on an idle machine, a
  // few dozen when other load takes their CPU and the spins end early: waiter.h).
  // With more ranks than cores the socket is left to the progress thread (world.cc), so
  // the polling check runs on 2 ranks; 3 ranks (two senders interleaving) check order.
  for (const char* spin : {"0", "2000"}) {
    for (int np : {2, 3}) {
      INFO("NEXAR_QUIC_SPIN_US=" << spin << ", " << np << " ranks");
      auto r = probe(np, "pingpong", {std::string("NEXAR_QUIC_SPIN_US=") + spin});
      expect_ok(r, np, "pingpong ok");
      REQUIRE(count_of(r.err, "waiting threads read ") == static_cast<size_t>(np));
      if (std::string(spin) == "0") REQUIRE(polled(r.err) == 0);
      // The 256 KiB messages' 65,000-byte datagrams: the progress thread that read one
      // polls on without sleeping for 100 us (endpoint_loop.cc, kBulkPollNs).
      if (std::string(spin) == "0") REQUIRE(bulk_polls(r.err) > 0);
      if (std::string(spin) != "0" && np == 2) REQUIRE(polled(r.err) > 0);
    }
  }
}

TEST_CASE("a spinning thread that runs a timer reads the QUIC socket only when a datagram is there", "[quic][poll]") {
  // 200 messages 300 us apart, received in a 2 ms spin: each message's delayed ACK falls due
  // while the socket is empty, and the spinning thread takes the lock for that timer alone.
  // A recvmmsg then would find nothing (one per message); only a datagram the progress
  // thread took between the peek and the lock leaves a read empty.
  auto r = probe(2, "paced", {"NEXAR_QUIC_SPIN_US=2000"});
  expect_ok(r, 2, "paced ok");
  INFO("reads that found none: " << empty_reads(r.err) << ", datagrams read: " << polled(r.err));
  REQUIRE(polled(r.err) > 0);
  REQUIRE(empty_reads(r.err) * 4 <= polled(r.err));
}

TEST_CASE("an exchange's ACKs ride the next message and never ring the progress thread's alarm", "[quic][poll]") {
  // compare_allreduce's shape at np 2 (a barrier, then a 4 B allreduce; 2000 times): each
  // rank receives 2 messages per iteration. ngtcp2 acknowledges a few microseconds after a
  // packet arrived, before the reply is written: held (NEXAR_QUIC_ACK_HOLD_US), the ACK
  // goes with the rank's next message instead of in a packet of its own (about 1.9 such
  // packets per iteration and rank with the hold at 0). Neither its delayed-ACK timer nor
  // its hold's end arms the alarm of a blind progress loop (EndpointImpl::rearm_timer):
  // armed, it woke the loop 350-510 times per rank here.
  auto r = probe(2, "exchange", {"NEXAR_QUIC_SPIN_US=200"});
  expect_ok(r, 2, "exchange ok");
  INFO("packets without stream data: " << bare_packets(r.err) << ", alarms: " << alarms(r.err));
  REQUIRE(count_of(r.err, "progress-thread alarms") == 2);
  // 4 B messages: the progress thread sleeps between them. Only the handshakes' padded
  // 65,000-byte packets (a few per connection) start the bulk poll, each for 100 us.
  REQUIRE(bulk_polls(r.err) < 2 * 2000);
  auto off = probe(2, "exchange", {"NEXAR_QUIC_SPIN_US=200", "NEXAR_QUIC_ACK_HOLD_US=0"});
  expect_ok(off, 2, "exchange ok");
  INFO("NEXAR_QUIC_ACK_HOLD_US=0: packets without stream data: " << bare_packets(off.err));
#ifndef NEXAR_TEST_SANITIZED  // instrumented, the waits outlast their spin and sleep: the counts say little
  CHECK(bare_packets(r.err) <= 2 * 1000);  // both ranks, 2000 iterations
  CHECK(alarms(r.err) <= 2 * 100);
  CHECK(bare_packets(off.err) > 2 * 1000);
#endif
}

TEST_CASE("a waiting thread polls the QUIC socket for NEXAR_QUIC_SPIN_US (200 us) before it sleeps", "[quic][poll]") {
  // Unbound, a core per rank (with fewer cores than ranks the socket is left to the
  // progress thread). 200 us by default: after 50 us a 4 B allreduce's wait at np 2 slept
  // whenever the peer was descheduled, and each sleep cost two hand-offs
  // (docs/quic-performance.md, "A 200 us spin").
  if (std::thread::hardware_concurrency() < 2) return;
  const std::pair<const char*, const char*> cases[] = {{"NEXAR_TIMEOUT=60", "QUIC socket for 200 us"},
                                                       {"NEXAR_QUIC_SPIN_US=30", "QUIC socket for 30 us"}};
  for (const auto& [env, said] : cases) {
    auto r = launcher_test::run_ranks(2, {QUIC_POLL_PROBE, "pingpong"},
                                      {"NEXAR_TRANSPORT=quic", "NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=INIT", env},
                                      {"--bind-to", "none"}, 240s);
    INFO(env << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    expect_ok(r, 2, "pingpong ok");
    CHECK(count_of(r.err, std::string("waits polling the ") + said) == 2);
  }
}

TEST_CASE("a peer killed while the other spins in the QUIC poll is PEER_LOST, not a hang", "[quic][poll][fault]") {
  // The spin (60 s) outlasts the wait: the waiting thread polls the socket the whole time.
  auto r = probe(2, "spin_lost", {"NEXAR_QUIC_SPIN_US=60000000", "NEXAR_PEER_TIMEOUT=2"}, {"--no-kill"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(count_of(r.out, "spin_lost NEXAR_ERR_PEER_LOST") == 1);
  for (long s : launcher_test::numbers_after(r.out, "after ")) REQUIRE(s < 8);
  REQUIRE(r.end.exit_code == 137);  // the victim died by SIGKILL; nexrun reports it
}
