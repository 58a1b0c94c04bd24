// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TRANSPORT=tcp between namespace hosts: point to point, collectives and splits
// (mh_probe), every collective with exact results at np 2 and 4 (coll_e2e_probe), and a
// rank killed on the other host seen by every survivor.
#include <unistd.h>

#include <catch.hpp>

#include "launcher/nexrun_process.h"
#include "multihost/shared_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

namespace {

std::string marker() { return "mh-tcp-marker-" + std::to_string(getpid()); }

std::vector<std::string> with_agent(std::vector<std::string> args) {
  args.insert(args.begin(), {"--launch-agent", NetnsTestbed::agent_template(), "--transport", "tcp"});
  return args;
}

}  // namespace

TEST_CASE("collectives over TCP across two namespace hosts, exact, np 2 and 4", "[multihost][tcp]") {
  if (!shared_testbed(3)) return;
  for (const std::string hosts : {"mhA:1,mhB:1", "mhA:2,mhB:2"}) {
    const int np = hosts == "mhA:1,mhB:1" ? 2 : 4;
    std::string out, err;
    Ended e = run_nexrun(with_agent({"-H", hosts, MH_PROBE, "collect", marker()}), &out, &err, 60s);
    INFO(hosts << "\n" << out << err);
    CHECK(e.exit_code == 0);
    CHECK(count_of(out, "ok rank") == static_cast<size_t>(np));
    const std::string scenarios = "sweep,dtypes,nonblocking,large";
    e = run_nexrun(with_agent({"-H", hosts, COLL_E2E_PROBE, scenarios}), &out, &err, 120s, {"NEXAR_TIMEOUT=60"});
    INFO(out << err);
    CHECK(e.exit_code == 0);
    for (const char* s : {"sweep", "dtypes", "nonblocking", "large"})
      CHECK(count_of(out, std::string(": ") + s + " ok") == static_cast<size_t>(np));
    std::printf("np %d over TCP across 2 hosts: collectives exact (%.2f s)\n", np, e.seconds);
  }
}

TEST_CASE("a rank killed on another host is seen over TCP by every survivor", "[multihost][tcp]") {
  if (!shared_testbed(3)) return;
  std::string out, err;
  Ended e = run_nexrun(with_agent({"-H", "mhA:2,mhB:1", "--no-kill", DETECT_PROBE, "kill", marker()}), &out, &err, 60s,
                       {"NEXAR_PEER_TIMEOUT=3", "NEXAR_TIMEOUT=30"});
  INFO(out << err);
  CHECK(e.finished);
  CHECK(count_of(out, "lost NEXAR_ERR_PEER_LOST after ") == 2);
  CHECK(count_of(out, "survivors ok") == 2);
  for (double t : decimals_after(out, "lost NEXAR_ERR_PEER_LOST after ")) CHECK(t <= 3.0 + 1.0);
}
