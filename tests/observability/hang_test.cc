// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// End to end: a rank that sleeps in its own code before an allreduce while the others wait
// in it. The others time out (NEXAR_TIMEOUT) and nexrun prints the cross-rank report
// naming the sleeper; SIGUSR1 to nexrun prints one without any timeout; errors and
// parameter typos are printed without NEXAR_DEBUG.
#include <signal.h>
#include <unistd.h>

#include <catch.hpp>
#include <thread>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

std::string marker() { return "hang-marker-" + std::to_string(getpid()); }

std::string line_with(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

// The report's text: its first line and the rank lines after it.
std::string report_of(const std::string& err) {
  const size_t at = err.find("nexrun: hang report:");
  if (at == std::string::npos) return "";
  size_t end = at;
  while (end < err.size() && err.compare(end, 7, "nexrun:") == 0) end = err.find('\n', end) + 1;
  return err.substr(at, end - at);
}

}  // namespace

TEST_CASE("a rank sleeping before an allreduce is named by the report at np 8", "[hang]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "8", HANG_PROBE, "3", "60", marker()}, &out, &err, 90s, {"NEXAR_TIMEOUT=3"});
  INFO(out << err);
  CHECK(e.finished);
  CHECK(e.exit_code == 3);  // the first rank that returned the timeout
  const std::string report = report_of(err);
  std::printf("np 8, rank 3 sleeps, NEXAR_TIMEOUT=3 (%.1f s):\n%s", e.seconds, report.c_str());
  CHECK(line_with(err, "nexrun: hang report:") ==
        "nexrun: hang report: ranks 0-2,4-7 wait in allreduce #6 on comm 0x0 (world); rank 3 never entered it "
        "(last completed: allreduce #5; now: outside nexar)");
  CHECK(line_with(report, "nexrun:   rank 5 (").find("in allreduce #6 ") != std::string::npos);
  CHECK(count_of(err, "nexrun: hang report:") == 1);  // one report, though seven ranks timed out
  for (int r = 0; r < 8; ++r) CHECK(report.find("nexrun:   rank " + std::to_string(r) + " (") != std::string::npos);
  // The error that broke the communicator is printed without NEXAR_DEBUG.
  CHECK(err.find("unusable: ") != std::string::npos);
  CHECK(count_of(err, "8 ranks) unusable: NEXAR_ERR_TIMEOUT: ") == 7);  // once per rank that timed out
}

TEST_CASE("nexrun --status and SIGUSR1 report a rank stuck in its own code, and the job goes on", "[hang]") {
  const std::string tmp = make_temp_dir();
  NexrunProcess job({"-np", "4", HANG_PROBE, "1", "10", marker()}, {"TMPDIR=" + tmp});
  REQUIRE(job.wait_for_stdout("ready ", 4, 30s));
  REQUIRE(job.wait_for_stdout("sleeping 1", 1, 5s));
  std::this_thread::sleep_for(1s);  // the others are inside the allreduce by now

  // From another terminal: the only job of this user (in this TMPDIR).
  std::string out, err;
  Ended st = run_nexrun({"--status"}, &out, &err, 30s, {"TMPDIR=" + tmp});
  INFO(out << err);
  CHECK(st.exit_code == 0);
  std::printf("nexrun --status while rank 1 sleeps:\n%s", out.c_str());
  CHECK(out.find(": running, 4 rank(s)\n") != std::string::npos);
  CHECK(line_with(out, "nexrun:   rank 1 (pid ").find("running): outside nexar") != std::string::npos);
  CHECK(line_with(out, "nexrun:   rank 0 (pid ").find("running): allreduce #6 on comm 0x0") != std::string::npos);
  CHECK(out.find("nexrun: hang report: ranks 0,2-3 wait in allreduce #6 on comm 0x0 (world); rank 1 never entered it") !=
        std::string::npos);
  Ended none = run_nexrun({"--status", "0000"}, &out, &err, 30s, {"TMPDIR=" + tmp});
  CHECK(none.exit_code == 1);
  CHECK(err.find("nexrun --status: no running job at ") != std::string::npos);

  job.signal(SIGUSR1);
  Ended e = job.wait(60s);
  INFO(job.out() << job.err());
  CHECK(e.exit_code == 0);  // not forwarded: no rank was killed by it
  CHECK(count_of(job.out(), "done ") == 4);
  std::printf("np 4, SIGUSR1 while rank 1 sleeps:\n%s", report_of(job.err()).c_str());
  CHECK(line_with(job.err(), "nexrun: hang report:") ==
        "nexrun: hang report: ranks 0,2-3 wait in allreduce #6 on comm 0x0 (world); rank 1 never entered it "
        "(last completed: allreduce #5; now: outside nexar)");
  CHECK(job.err().find("(report asked by SIGUSR1 to nexrun)") != std::string::npos);
  CHECK(count_of(job.err(), "nexrun: hang report:") == 1);  // the --status round printed nothing
  remove_tree(tmp);
}

TEST_CASE("parameter typos and malformed values are warned about by default", "[hang]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "2", HANG_PROBE, "-1", "0", marker()}, &out, &err, 60s,
                       {"NEXAR_TIMEOT=5", "NEXAR_EAGER_LIMIT=64k"});
  INFO(out << err);
  CHECK(e.exit_code == 0);
  // nexrun and each rank: once per process.
  CHECK(count_of(err, "NEXAR_TIMEOT is not a nexar parameter; did you mean NEXAR_TIMEOUT?") == 3);
  CHECK(count_of(err, "NEXAR_EAGER_LIMIT=64k is not an integer; the default 65536 is used") == 3);
  // What nexrun sets for its ranks draws no warning, nor does anything else in a clean job.
  e = run_nexrun({"-np", "2", HANG_PROBE, "-1", "0", marker()}, &out, &err, 60s);
  CHECK(e.exit_code == 0);
  CHECK(err.empty());
}

TEST_CASE("an init failure is printed with its cause by default", "[hang]") {
  std::string out, err;
  Ended e = run_nexrun({"--no-kill", "-np", "2", HANG_PROBE, "-1", "0", marker()}, &out, &err, 60s,
                       {"NEXAR_IFACE=nosuchif9"});
  INFO(out << err);
  CHECK(e.exit_code == 4);
  CHECK(count_of(err, "nexar_init failed: ") == 2);
  CHECK(err.find("nosuchif9") != std::string::npos);
}
