// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Fault tolerance in nexrun: --enable-recovery (survivors keep running, a failure they
// finish after is not the job's status), --max-restarts (gang restart with a fresh
// rendezvous and the attempt number in every rank), --respawn (a replacement process for
// a failed rank, limits counted). rank_probe's "restart" mode fails a rank while its
// NEXAR_RESTART_COUNT is below a bound.
#include <signal.h>

#include <catch.hpp>
#include <set>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

// The "rdv=" values of rank_probe's restart lines, one per process.
std::set<std::string> rendezvous_seen(const std::string& out) {
  std::set<std::string> seen;
  for (size_t p = out.find(" rdv="); p != std::string::npos; p = out.find(" rdv=", p + 1))
    seen.insert(out.substr(p + 5, out.find('\n', p) - p - 5));
  return seen;
}

}  // namespace

TEST_CASE("--enable-recovery: survivors finish, the failure is reported, exit 0", "[launcher][restart]") {
  std::string out, err;
  // Rank 1 exits 3 at 200 ms; ranks 0 and 2 keep running and exit 0 at 800 ms.
  Ended e = run_nexrun({"-np", "3", "--enable-recovery", probe_path(), "restart", "1", "3", "99", "800"}, &out, &err);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 0);
  CHECK(count_of(err, "nexrun: ") == 1);
  CHECK(err.find("nexrun: rank 1 (pid ") != std::string::npos);
  CHECK(err.find("exited with status 3") != std::string::npos);
  CHECK(count_of(out, "ready ") == 3);
  CHECK(e.seconds > 0.7);  // the survivors ran to their end
}

TEST_CASE("--enable-recovery: a failure no rank finishes after is the job's status", "[launcher][restart]") {
  NexrunProcess job({"-np", "3", "--enable-recovery", probe_path(), "exit", "0", "5"});
  REQUIRE(job.wait_for_stdout("ready ", 3, 10s));
  const std::vector<long> pids = pids_by_rank(job.out(), 3);
  REQUIRE(process_gone(static_cast<pid_t>(pids[0]), 5s));  // rank 0 exits 5 at 200 ms
  CHECK_FALSE(process_gone(static_cast<pid_t>(pids[1]), 300ms));
  kill(static_cast<pid_t>(pids[1]), SIGUSR1);  // the survivors fail too
  kill(static_cast<pid_t>(pids[2]), SIGUSR1);
  Ended e = job.wait(10s);
  INFO("stderr:\n" << job.err());
  REQUIRE(e.finished);
  CHECK(e.exit_code == 5);
  CHECK(count_of(job.err(), "nexrun: rank ") == 3);  // every failure named
}

TEST_CASE("--max-restarts: attempt 1 succeeds after attempt 0 failed", "[launcher][restart]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "3", "--max-restarts", "2", probe_path(), "restart", "1", "3", "1", "400"}, &out, &err);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 0);
  for (int r = 0; r < 3; ++r) {
    const std::string rank = "restart " + std::to_string(r);
    CHECK(count_of(out, rank + " count=0 torch=0 ") == 1);
    CHECK(count_of(out, rank + " count=1 torch=1 ") == 1);
  }
  CHECK(count_of(err, "nexrun: attempt 0 failed (exit status 3): restarting every rank (restart 1 of 2)") == 1);
  CHECK(count_of(err, "restarting") == 1);
  CHECK(rendezvous_seen(out).size() == 2);  // each attempt had its own rendezvous
}

TEST_CASE("--max-restarts exhausted: the last attempt's status", "[launcher][restart]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "2", "--max-restarts", "1", probe_path(), "restart", "0", "4", "9", "5000"}, &out, &err);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 4);
  CHECK(count_of(out, "restart 0 count=1 torch=1 ") == 1);
  CHECK(count_of(out, "count=2") == 0);
  CHECK(count_of(err, "restarting every rank") == 1);
  CHECK(e.seconds < 4.0);  // the survivors of each attempt were stopped, not waited for
}

TEST_CASE("--max-restarts: no restart after SIGTERM to nexrun", "[launcher][restart]") {
  NexrunProcess job({"-np", "2", "--max-restarts", "3", probe_path(), "sleep", "20000"});
  REQUIRE(job.wait_for_stdout("ready ", 2, 10s));
  job.signal(SIGTERM);
  Ended e = job.wait(10s);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 128 + SIGTERM);
  CHECK(count_of(job.err(), "restarting") == 0);
}

TEST_CASE("--respawn: a replacement with the rank's environment; survivors untouched", "[launcher][restart]") {
  std::string out, err;
  // Rank 1 fails in incarnation 0; its replacement (count 1) exits 0; ranks 0 and 2 run 1.5 s.
  Ended e = run_nexrun({"-np", "3", "--respawn", "2", probe_path(), "restart", "1", "3", "1", "1500"}, &out, &err);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "restart 1 count=0 torch=0 ") == 1);
  CHECK(count_of(out, "restart 1 count=1 torch=1 ") == 1);
  CHECK(count_of(out, "restart 0 ") == 1);  // never restarted
  CHECK(count_of(out, "restart 2 ") == 1);
  CHECK(rendezvous_seen(out).size() == 1);  // the same job, the same rendezvous
  CHECK(count_of(err, "exited with status 3; starting replacement 1 of rank 1 (1 of 2 in the job)") == 1);
  CHECK(count_of(err, "nexrun: ") == 1);
}

TEST_CASE("--respawn N: at most N replacements in the job", "[launcher][restart]") {
  std::string out, err;
  // Rank 0 fails in every incarnation; one replacement only; rank 1 finishes at 1.5 s.
  Ended e = run_nexrun({"-np", "2", "--respawn", "1", probe_path(), "restart", "0", "3", "9", "1500"}, &out, &err);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(e.finished);
  CHECK(count_of(out, "restart 0 count=") == 2);
  CHECK(count_of(out, "restart 0 count=1 torch=1 ") == 1);
  CHECK(count_of(err, "starting replacement") == 1);
  CHECK(count_of(err, "nexrun: rank 0 (pid ") == 2);
  CHECK(e.exit_code == 0);  // rank 1 finished after both failures (recovery's rule)
}

TEST_CASE("--max-restarts does not combine with --respawn", "[launcher][restart]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "2", "--max-restarts", "1", "--respawn", "1", probe_path(), "sleep", "1"}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("--max-restarts") != std::string::npos);
}
