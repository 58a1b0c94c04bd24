// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Failure handling: one line naming the failing rank, the others stopped within about a
// second with no process left, and nexrun exits with the rank's status.
#include <signal.h>

#include <catch.hpp>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

// Reads the "ready" lines of N ranks; returns their pids.
std::vector<long> ready_pids(NexrunProcess& job, int n) {
  REQUIRE(job.wait_for_stdout("ready ", n, 10s));
  std::vector<long> pids = pids_by_rank(job.out(), n);
  for (long pid : pids) REQUIRE(pid > 0);
  return pids;
}

void check_all_gone(const std::vector<long>& pids) {
  for (long pid : pids) CHECK(process_gone(static_cast<pid_t>(pid), 500ms));
}

// The job ends with 137 and one line, naming `rank` (killed by SIGKILL); nothing is left.
void expect_killed_rank_named(NexrunProcess& job, const std::vector<long>& pids, int rank) {
  Ended e = job.wait(10s);
  INFO(job.err());
  REQUIRE(e.finished);
  CHECK(e.exit_code == 137);
  CHECK(count_of(job.err(), "nexrun: ") == 1);
  CHECK(job.err().find("rank " + std::to_string(rank) + " (pid ") != std::string::npos);
  check_all_gone(pids);
}

}  // namespace

TEST_CASE("a job whose ranks all succeed exits 0", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "3", probe_path(), "sleep", "50"}, &out, &err);
  CHECK(e.exit_code == 0);
  CHECK(err.empty());
  CHECK(count_of(out, "ready ") == 3);
}

TEST_CASE("exit 3 from rank 2 stops the job and nexrun exits 3", "[launcher]") {
  NexrunProcess job({"-np", "4", probe_path(), "exit", "2", "3"});
  std::vector<long> pids = ready_pids(job, 4);
  Ended e = job.wait(10s);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 3);
  CHECK(e.seconds < 2.5);  // 200 ms of rank life, the first exit held 250 ms for a cause, a prompt teardown
  CHECK(count_of(job.err(), "nexrun: ") == 1);
  CHECK(job.err().find("nexrun: rank 2 (pid ") != std::string::npos);
  CHECK(job.err().find("exited with status 3") != std::string::npos);
  check_all_gone(pids);
}

TEST_CASE("a rank killed by SIGKILL makes nexrun exit 137", "[launcher]") {
  NexrunProcess job({"-np", "3", probe_path(), "raise", "1", "9"});
  std::vector<long> pids = ready_pids(job, 3);
  Ended e = job.wait(10s);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 137);
  CHECK(count_of(job.err(), "nexrun: ") == 1);
  CHECK(job.err().find("rank 1 (pid ") != std::string::npos);
  CHECK(job.err().find("killed by signal 9") != std::string::npos);
  check_all_gone(pids);
}

TEST_CASE("of ranks that fail together, the one that failed first is named", "[launcher]") {
  // nexrun is stopped while rank 2 dies and then rank 0: both are reaped after one SIGCHLD.
  // Issue 19: ranks were reaped in index order, so rank 0 (143) was named and its status taken.
  NexrunProcess job({"-np", "3", probe_path(), "exit", "99", "0"});  // no rank exits by itself
  std::vector<long> pids = ready_pids(job, 3);
  job.signal(SIGSTOP);
  kill(static_cast<pid_t>(pids[2]), SIGKILL);
  CHECK(process_gone(static_cast<pid_t>(pids[2]), 5s));
  kill(static_cast<pid_t>(pids[0]), SIGTERM);
  CHECK(process_gone(static_cast<pid_t>(pids[0]), 5s));
  job.signal(SIGCONT);
  expect_killed_rank_named(job, pids, 2);
}

TEST_CASE("a rank killed just after another exited with an error is named as the cause", "[launcher]") {
  // Issue 19: the peers of a killed rank can notice (its sockets close) and exit before the
  // kernel reports its end; nexrun named the first end (exit 1) instead of the kill (137).
  NexrunProcess job({"-np", "3", probe_path(), "exit-on-usr1", "1"});
  std::vector<long> pids = ready_pids(job, 3);
  kill(static_cast<pid_t>(pids[0]), SIGUSR1);
  CHECK(process_gone(static_cast<pid_t>(pids[0]), 5s));  // its end comes first
  kill(static_cast<pid_t>(pids[2]), SIGKILL);
  expect_killed_rank_named(job, pids, 2);
}

TEST_CASE("ranks that ignore SIGTERM are killed after the grace period", "[launcher]") {
  // Rank 0 fails on a signal we send it; the others ignore SIGTERM.
  NexrunProcess job({"-np", "3", probe_path(), "ignore-term"});
  std::vector<long> pids = ready_pids(job, 3);
  const auto t0 = std::chrono::steady_clock::now();
  kill(static_cast<pid_t>(pids[0]), SIGKILL);
  Ended e = job.wait(10s);
  const double teardown = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(e.finished);
  CHECK(e.exit_code == 137);
  CHECK(teardown > 0.9);  // they ignored SIGTERM: only SIGKILL, after the 1 s grace, ended them
  CHECK(teardown < 2.0);
  check_all_gone(pids);
}

TEST_CASE("processes a rank started are stopped with it", "[launcher]") {
  NexrunProcess job({"-np", "2", probe_path(), "grandchild"});
  std::vector<long> pids = ready_pids(job, 2);
  std::vector<long> children = numbers_after(job.out(), "child=");
  REQUIRE(children.size() == 2);
  kill(static_cast<pid_t>(pids[1]), SIGTERM);
  Ended e = job.wait(10s);
  CHECK(e.exit_code == 128 + SIGTERM);
  check_all_gone(pids);
  check_all_gone(children);
}

TEST_CASE("--no-kill keeps the other ranks running", "[launcher]") {
  NexrunProcess job({"-np", "3", "--no-kill", probe_path(), "exit", "0", "5"});
  std::vector<long> pids = ready_pids(job, 3);
  // Rank 0 exits at ~200 ms; the others must still be alive well after that.
  REQUIRE(job.wait_for_stdout("never printed", 1, 800ms) == false);
  CHECK(job.err().find("nexrun: rank 0 (pid ") != std::string::npos);
  CHECK(process_gone(static_cast<pid_t>(pids[0]), 100ms));
  CHECK_FALSE(process_gone(static_cast<pid_t>(pids[1]), 0ms));
  CHECK_FALSE(process_gone(static_cast<pid_t>(pids[2]), 0ms));
  // The others end when told to; nexrun still exits with the first failure's status.
  kill(static_cast<pid_t>(pids[1]), SIGUSR1);  // default action: terminate
  kill(static_cast<pid_t>(pids[2]), SIGUSR1);
  Ended e = job.wait(10s);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 5);
  check_all_gone(pids);
}

TEST_CASE("--timeout stops the job with 124", "[launcher]") {
  NexrunProcess job({"-np", "2", "--timeout", "0.5", probe_path(), "sleep", "20000"});
  std::vector<long> pids = ready_pids(job, 2);
  Ended e = job.wait(10s);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 124);
  CHECK(e.seconds < 2.0);
  CHECK(job.err().find("nexrun: job timed out after 0.5 s") != std::string::npos);
  CHECK(count_of(job.err(), "nexrun: ") == 1);
  check_all_gone(pids);
}
