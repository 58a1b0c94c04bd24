// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TRANSPORT=tcp end to end on loopback: real ranks under nexrun, every peer over
// TCP (shared memory off, as with quic). Point to point, every collective with exact
// results, back-pressure, payloads placed into posted receives, keep-alives on an idle
// job, the connections' congestion control, and the unknown-value errors.
#include <catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "integration/p2p_expect.h"
#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;
const std::string kTcp = "NEXAR_TRANSPORT=tcp";

Run p2p(int np, const std::string& scenario, std::vector<std::string> env = {}) {
  env.push_back(kTcp);
  env.push_back("NEXAR_DEBUG=INFO");
  env.push_back("NEXAR_DEBUG_SUBSYS=INIT,NET");
  return launcher_test::run_ranks(np, {P2P_PROBE, scenario}, env, {}, 90s);
}

}  // namespace

TEST_CASE("point to point over TCP: ring, 0 B to 64 MiB, order, back-pressure", "[tcp]") {
  Run r = p2p(4, "basic");
  p2p_expect::basic(r, 4);
  // Every peer went over TCP, said so, and said the payload is not encrypted.
  CHECK(count_of(r.err, "-> rank") == 12);
  CHECK(count_of(r.err, ": TCP") == 12);
  CHECK(count_of(r.err, "NOT encrypted") == 4);
  p2p_expect::sizes(p2p(2, "sizes"), 2);
  // At np 2 a waiting thread reads its one socket itself, without asking epoll first (one
  // system call, not two, between a message's arrival and its reading). The rank that
  // mostly sends may get its few messages read by the TCP thread: counted over both.
  Run order = p2p(2, "order");
  expect_ok(order, 2, "order ok");
  unsigned long long by_waiters = 0;
  for (const char* line : {"TCP link to rank 0: ", "TCP link to rank 1: "}) {
    INFO("stderr:\n" << order.err);
    const size_t at = order.err.find("; reads: ", order.err.find(line));
    REQUIRE(at != std::string::npos);
    unsigned long long reads = 0, by_waiter = 0;
    REQUIRE(std::sscanf(order.err.c_str() + at, "; reads: %llu, %llu of them by a waiting thread without epoll", &reads,
                        &by_waiter) == 2);
    CHECK(by_waiter <= reads);
    by_waiters += by_waiter;
  }
  CHECK(by_waiters > 0);
  // 48 MiB of large messages nobody receives yet, past a 4 MiB store, then small ones the
  // receiver takes first: they must not wait behind the large payloads.
  expect_ok(p2p(2, "unexpected", {"NEXAR_UNEXPECTED_LIMIT=4194304"}), 2, "unexpected ok");
  // The same 1 MiB messages inline (MSG frames written straight from the sender's buffer):
  // the socket fills in the middle of one, whose rest is queued from a copy.
  expect_ok(p2p(2, "unexpected", {"NEXAR_UNEXPECTED_LIMIT=4194304", "NEXAR_EAGER_LIMIT=1048576"}), 2, "unexpected ok");
  // Payloads read straight into posted receives: whole, too long, scattered.
  Run placed = p2p(2, "placed");
  expect_ok(placed, 2, "placed ok");
  // 4 MiB + 3 waits for a CTS (more than the 2 MiB credit); 300000 (too long for its
  // receive: dropped) and 1 MiB + 5 (scattered) go on credit, their payloads at once.
  CHECK(count_of(placed.err, "TCP link to rank 1: large messages sent: 2 on credit, 1 after a CTS;") == 1);
  // The two payloads with room in their receives (5242888 bytes) were read straight there,
  // but for what the read that took a LARGE_NOW frame took of the payload behind it (at
  // most one read, kReadChunk in tcp_link_rx.cc: 64 KiB + 64 bytes, less the frame's
  // head): the reader stops at a DATA frame's head while a payload is due.
  INFO("stderr:\n" << placed.err);
  const std::string tail = "payload into posted receives: ";
  const size_t at = placed.err.find(tail, placed.err.find("TCP link to rank 0: large messages sent: 0 on credit, 0 "));
  REQUIRE(at != std::string::npos);
  unsigned long long direct = 0, copied = 0;
  REQUIRE(std::sscanf(placed.err.c_str() + at + tail.size(), "%llu bytes read there directly, %llu copied", &direct,
                      &copied) == 2);
  CHECK(direct + copied == 5242888);
  CHECK(copied <= 65536 + 64);
  // Returned credit waits for a frame going back until half the credit (1 MiB) is due: the
  // two payloads on credit (300000 and 1 MiB + 5 bytes) went back in one CREDIT frame.
  CHECK(count_of(placed.err, "of them by a waiting thread without epoll; CREDIT frames sent: 1, 1 of them alone") == 1);
}

TEST_CASE("every collective over TCP with exact results at np 2 and 4", "[tcp]") {
  const std::string scenarios = "sweep,dtypes,identical,nonblocking,large";
  for (int np : {2, 4}) {
    Run r = launcher_test::run_ranks(np, {COLL_E2E_PROBE, scenarios}, {kTcp, "NEXAR_TIMEOUT=60"}, {}, 120s);
    INFO("np " << np << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.end.finished);
    REQUIRE(r.end.exit_code == 0);
    for (const char* s : {"sweep", "dtypes", "identical", "nonblocking", "large"})
      CHECK(count_of(r.out, std::string(": ") + s + " ok") == static_cast<size_t>(np));
  }
}

TEST_CASE("an idle job over TCP outlives the peer timeout (keep-alives)", "[tcp]") {
  expect_ok(p2p(2, "idle", {"NEXAR_PEER_TIMEOUT=1.5", "NEXAR_KEEPALIVE=0.3"}), 2, "idle ok");
}

TEST_CASE("a waiting thread polls the TCP sockets for NEXAR_TCP_SPIN_US (200 us) before it sleeps", "[tcp]") {
  // Unbound, a core per rank: with fewer cores than ranks a wait leaves the sockets to the
  // TCP thread (and says so). 200 us by default: after 50 us a wait slept through the
  // pauses of a 1 MiB allreduce (the peer reducing, or descheduled) and every sleep cost
  // two hand-offs (docs/tcp.md).
  if (std::thread::hardware_concurrency() < 2) return;
  // It yields the core only past that time: a yield gave it to other load for a whole
  // slice (docs/tcp.md).
  const std::pair<const char*, const char*> cases[] = {
      {"NEXAR_TIMEOUT=60", "TCP sockets for 200 us (yielding the core only past that time)"},
      {"NEXAR_TCP_SPIN_US=30", "TCP sockets for 30 us (yielding the core only past that time)"}};
  for (const auto& [env, said] : cases) {
    Run r = launcher_test::run_ranks(2, {P2P_PROBE, "order"}, {kTcp, "NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=INIT", env},
                                     {"--bind-to", "none"}, 60s);
    INFO(env << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(count_of(r.out, "order ok") == 2);
    CHECK(count_of(r.err, std::string("waits polling the ") + said) == 2);
  }
}

namespace {

// Whether this process may give its TCP sockets congestion control `name`: the kernel has
// it, and it is allowed to everyone or this process is root (CAP_NET_ADMIN).
bool congestion_usable(const std::string& name) {
  auto words = [](const char* path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return " " + ss.str() + " ";
  };
  const std::string word = " " + name + " ";
  auto has = [&](const std::string& list) {
    std::string l = list;
    for (char& c : l)
      if (c == '\n' || c == '\t') c = ' ';
    return l.find(word) != std::string::npos;
  };
  return has(words("/proc/sys/net/ipv4/tcp_available_congestion_control")) &&
         (geteuid() == 0 || has(words("/proc/sys/net/ipv4/tcp_allowed_congestion_control")));
}

}  // namespace

TEST_CASE("TCP connections use the first of NEXAR_TCP_CONGESTION the kernel takes (cubic,reno); none is an error", "[tcp]") {
  // Both ends of the connection say what their socket uses (getsockopt): the acceptor's
  // set on the accepted socket, the dialer's on its own. Not BBR: docs/tcp.md.
  auto run = [](const std::string& env) {
    return launcher_test::run_ranks(2, {P2P_PROBE, "order"}, {kTcp, "NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=NET", env},
                                    {}, 60s);
  };
  // reno is built in and allowed to every process; cubic is a module, and allowed to an
  // unprivileged one only if the host lists it.
  const std::pair<std::string, std::string> cases[] = {
      {"NEXAR_TIMEOUT=60", congestion_usable("cubic") ? "cubic" : "reno"},
      {"NEXAR_TCP_CONGESTION=reno", "reno"},
      {"NEXAR_TCP_CONGESTION=no-such-cc,reno", "reno"}};
  for (const auto& [env, used] : cases) {
    Run r = run(env);
    INFO(env << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(count_of(r.out, "order ok") == 2);
    CHECK(count_of(r.err, "over TCP (congestion control " + used + ";") == 2);
  }
  Run r = run("NEXAR_TCP_CONGESTION=no-such-cc");
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(r.end.exit_code != 0);
  CHECK(count_of(r.out + r.err, "NEXAR_TCP_CONGESTION=no-such-cc: the kernel takes none of it for TCP (no-such-cc: ") >= 1);
  CHECK(count_of(r.out, "order ok") == 0);
}

TEST_CASE("an unknown NEXAR_TRANSPORT is an error naming it", "[tcp]") {
  Run r = launcher_test::run_ranks(2, {P2P_PROBE, "basic"}, {"NEXAR_TRANSPORT=carrier-pigeon"}, {}, 30s);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(r.end.exit_code != 0);
  CHECK(count_of(r.out + r.err, "NEXAR_TRANSPORT=carrier-pigeon is not a transport") >= 1);
  CHECK(count_of(r.out, "basic ok") == 0);
  Run cli = launcher_test::run_ranks(2, {P2P_PROBE, "basic"}, {}, {"--transport", "udp"}, 30s);
  CHECK(cli.end.exit_code == 2);
  CHECK(count_of(cli.err, "--transport") >= 1);
}
