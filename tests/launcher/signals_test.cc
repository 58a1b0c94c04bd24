// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Signals to nexrun: forwarded to every rank (SIGUSR1 prints a hang report instead);
// SIGTERM stops the job; SIGKILL of nexrun takes the ranks down (PDEATHSIG).
#include <signal.h>

#include <catch.hpp>
#include <chrono>
#include <thread>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

TEST_CASE("SIGUSR2 and SIGHUP reach every rank; SIGUSR1 is nexrun's hang report", "[launcher]") {
  constexpr int N = 3;
  NexrunProcess job({"-np", std::to_string(N), probe_path(), "signals"}, {"NEXAR_REPORT_TIMEOUT=0.5"});
  REQUIRE(job.wait_for_stdout("ready ", N, 10s));
  job.signal(SIGUSR1);
  job.signal(SIGUSR2);
  REQUIRE(job.wait_for_stdout("USR2", N, 5s));
  job.signal(SIGHUP);
  REQUIRE(job.wait_for_stdout("HUP", N, 5s));
  for (int r = 0; r < N; ++r) {
    const std::string rs = std::to_string(r);
    CHECK(count_of(job.out(), "got " + rs + " USR1\n") == 0);
    CHECK(count_of(job.out(), "got " + rs + " USR2\n") == 1);
    CHECK(count_of(job.out(), "got " + rs + " HUP\n") == 1);
  }
  std::this_thread::sleep_for(3s);  // the report's round ends 0.5 s after SIGUSR1
  job.signal(SIGTERM);
  Ended e = job.wait(10s);
  CHECK(e.exit_code == 128 + SIGTERM);
  // These ranks do not link libnexar: nobody answers, and the report says so.
  INFO(job.err());
  CHECK(job.err().find("nexrun: hang report: no rank is inside a collective; ranks 0-2 did not answer within 0.5 s\n") !=
        std::string::npos);
}

TEST_CASE("SIGTERM and SIGINT to nexrun stop the job", "[launcher]") {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string tmp = make_temp_dir();
    NexrunProcess job({"-np", "3", probe_path(), "sleep", "20000"}, {"TMPDIR=" + tmp});
    REQUIRE(job.wait_for_stdout("ready ", 3, 10s));
    std::vector<long> pids = numbers_after(job.out(), "pid=");
    job.signal(sig);
    Ended e = job.wait(10s);
    REQUIRE(e.finished);
    CHECK(e.exit_code == 128 + sig);
    CHECK(e.seconds < 5.0);
    for (long pid : pids) CHECK(process_gone(static_cast<pid_t>(pid), 500ms));
    CHECK(nexar_entries(tmp).empty());
    remove_tree(tmp);
  }
}

TEST_CASE("a second SIGTERM kills ranks that ignore the first", "[launcher]") {
  NexrunProcess job({"-np", "2", probe_path(), "ignore-term"});
  REQUIRE(job.wait_for_stdout("ready ", 2, 10s));
  std::vector<long> pids = numbers_after(job.out(), "pid=");
  job.signal(SIGTERM);
  REQUIRE_FALSE(job.wait_for_stdout("never printed", 1, 300ms));
  CHECK_FALSE(process_gone(static_cast<pid_t>(pids[0]), 0ms));
  job.signal(SIGTERM);
  Ended e = job.wait(5s);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 137);
  for (long pid : pids) CHECK(process_gone(static_cast<pid_t>(pid), 500ms));
}

TEST_CASE("ranks die when nexrun is killed", "[launcher]") {
  const std::string tmp = make_temp_dir();
  NexrunProcess job({"-np", "3", probe_path(), "sleep", "20000"}, {"TMPDIR=" + tmp});
  REQUIRE(job.wait_for_stdout("ready ", 3, 10s));
  std::vector<long> pids = numbers_after(job.out(), "pid=");
  job.signal(SIGKILL);
  Ended e = job.wait(5s);
  CHECK(e.signal == SIGKILL);
  for (long pid : pids) CHECK(process_gone(static_cast<pid_t>(pid), 1s));
  // nexrun could not clean up after SIGKILL; its janitor process does.
  const auto until = std::chrono::steady_clock::now() + 3s;
  while (!nexar_entries(tmp).empty() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  CHECK(nexar_entries(tmp).empty());
  remove_tree(tmp);
}
