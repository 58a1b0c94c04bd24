// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The shared-memory transport end to end: real ranks under nexrun on one host.
#include <sched.h>

#include <catch.hpp>

#include <string>
#include <vector>

#include "integration/p2p_expect.h"
#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using launcher_test::numbers_after;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

Run run(int np, const std::string& program, const std::string& scenario, const std::vector<std::string>& env = {},
        const std::vector<std::string>& extra = {}, std::chrono::milliseconds timeout = 90s) {
  return launcher_test::run_ranks(np, {program, scenario}, env, extra, timeout);
}

const std::vector<std::string> kInfo = {"NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=INIT,NET"};

}  // namespace

TEST_CASE("ranks on one host choose shared memory; NEXAR_TRANSPORT=quic forces QUIC", "[shm]") {
  Run r = run(3, P2P_PROBE, "basic", kInfo);
  p2p_expect::basic(r, 3);
  CHECK(count_of(r.err, ": shared memory") == 6);  // every rank, both peers
  CHECK(count_of(r.err, "over shared memory (its large messages: read by the receiver") == 6);
  CHECK(count_of(r.err, "over QUIC") == 0);

  std::vector<std::string> env = kInfo;
  env.push_back("NEXAR_TRANSPORT=quic");
  r = run(3, P2P_PROBE, "basic", env);
  p2p_expect::basic(r, 3);
  CHECK(count_of(r.err, ": QUIC") == 6);
  CHECK(count_of(r.err, ": shared memory") == 0);
  CHECK(count_of(r.err, "over QUIC") == 6);
}

TEST_CASE("nothing of the job is left in /dev/shm once it runs", "[shm]") {
  expect_ok(run(4, SHM_PROBE, "clean"), 4, "clean left=0");
}

TEST_CASE("sizes, order and back-pressure copying through the ring (no CMA, small rings)", "[shm]") {
  const std::vector<std::string> env = {"NEXAR_SHM_CMA=0", "NEXAR_SHM_RING_BYTES=16384", "NEXAR_SHM_EAGER=1024"};
  p2p_expect::sizes(run(3, P2P_PROBE, "sizes", env), 3);
  expect_ok(run(2, P2P_PROBE, "order", env), 2, "order ok");
  std::vector<std::string> limited = env;
  limited.push_back("NEXAR_UNEXPECTED_LIMIT=4194304");
  expect_ok(run(2, P2P_PROBE, "unexpected", limited), 2, "unexpected ok");
}

TEST_CASE("a rank killed on the same host is noticed within two seconds", "[shm][fault]") {
  Run r = run(2, P2P_PROBE, "peer_lost", {}, {"--no-kill"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(count_of(r.out, "peer_lost NEXAR_ERR_PEER_LOST") == 1);
  for (double s : numbers_after(r.out, "after ")) CHECK(s < 2);
  CHECK(r.end.exit_code == 137);
}

TEST_CASE("8 ranks on this machine's cores: waiting ranks sleep instead of burning CPU", "[shm]") {
  Run r = run(8, SHM_PROBE, "idle_cpu");
  expect_ok(r, 8, "idle cpu=");
  INFO("stdout:\n" << r.out);
  std::vector<long> ranks = numbers_after(r.out, "rank ");
  // Every rank but 0 waited ~1 s in the barrier; spinning would cost ~1 s of CPU.
  size_t pos = 0;
  int checked = 0;
  while ((pos = r.out.find("idle cpu=", pos)) != std::string::npos) {
    const double cpu = std::stod(r.out.substr(pos + 9));
    const double wall = std::stod(r.out.substr(r.out.find("wall=", pos) + 5));
    if (wall > 0.5) {
      CHECK(cpu < 0.15 * wall);
      ++checked;
    }
    ++pos;
  }
  CHECK(checked >= 6);
}

TEST_CASE("more ranks than cores: each rank's waits go back to its own core, two ranks a core", "[shm]") {
  // Unbound, ranks that yield the core to each other gather on one (4 on 2 cores taking
  // turns: docs/benchmarks.md); each rank's shared-memory waits have a home, its local
  // index modulo this process's CPUs. NEXAR_WAIT_HOME=0 leaves placement to the scheduler.
  cpu_set_t mask;
  REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  if (cpus.size() < 2 || cpus.size() > 6) {
    WARN("not checked: needs 2-6 CPUs to run more ranks than cores, has " << cpus.size());
    return;
  }
  const int np = static_cast<int>(cpus.size()) + 2;
  Run r = run(np, SHM_PROBE, "clean", kInfo);
  expect_ok(r, np, "clean left=0");
  INFO("stderr:\n" << r.err);
  CHECK(count_of(r.err, "takes its waiting threads back to core") == static_cast<size_t>(np));
  for (int rank = 0; rank < np; ++rank)
    CHECK(count_of(r.err, "rank " + std::to_string(rank) + " takes its waiting threads back to core " +
                              std::to_string(cpus[static_cast<size_t>(rank) % cpus.size()]) + "\n") == 1);
  std::vector<std::string> off = kInfo;
  off.push_back("NEXAR_WAIT_HOME=0");
  r = run(np, SHM_PROBE, "clean", off);
  expect_ok(r, np, "clean left=0");
  CHECK(count_of(r.err, "takes its waiting threads back to core") == 0);
}

TEST_CASE("8 ranks on 2 cores: a ping-pong does not fall to scheduler ticks", "[shm]") {
  Run r = run(8, SHM_PROBE, "pingpong");
  expect_ok(r, 1, "pingpong median_us=");
  const double us = std::stod(r.out.substr(r.out.find("median_us=") + 10));
  INFO("median round trip " << us << " us");
  CHECK(us < 2000);  // a 4 ms tick would be 4000+
}
