// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The cross-rank hang report across two namespace hosts: rank 3 (on the second host)
// sleeps in its own code before an allreduce; the others time out and nexrun, on the
// first, names it from the records every rank sent through the rendezvous.
#include <unistd.h>

#include <catch.hpp>

#include "launcher/nexrun_process.h"
#include "multihost/netns_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

TEST_CASE("the hang report covers ranks on two namespace hosts", "[multihost]") {
  std::string why;
  NetnsTestbed bed;
  if (!NetnsTestbed::available(&why) || !bed.up(2, &why)) {
    WARN("skipped: " << why);
    return;
  }
  const std::string marker = "mh-hang-" + std::to_string(getpid());
  std::string out, err;
  Ended e = run_nexrun({"--launch-agent", NetnsTestbed::agent_template(), "-H", "mhA:2,mhB:2", HANG_PROBE, "3", "60",
                        marker},
                       &out, &err, 90s, {"NEXAR_TIMEOUT=3"});
  INFO(out << err);
  CHECK(e.exit_code == 3);
  const size_t at = err.find("nexrun: hang report:");
  REQUIRE(at != std::string::npos);
  std::printf("np 4 on two hosts, rank 3 sleeps, NEXAR_TIMEOUT=3 (%.1f s):\n%s", e.seconds, err.substr(at).c_str());
  CHECK(err.substr(at, err.find('\n', at) - at) ==
        "nexrun: hang report: ranks 0-2 wait in allreduce #6 on comm 0x0 (world); rank 3 never entered it "
        "(last completed: allreduce #5; now: outside nexar)");
  // Every rank answered, those on mhB too.
  for (int r = 0; r < 4; ++r) CHECK(err.find("nexrun:   rank " + std::to_string(r) + " (") != std::string::npos);
  CHECK(err.find("nexrun:   rank 3 (") != std::string::npos);
  for (int i = 0; i < 300 && !processes_with(marker).empty(); ++i) usleep(10000);
  CHECK(processes_with(marker).empty());
}
