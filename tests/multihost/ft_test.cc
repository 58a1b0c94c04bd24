// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Shrink across two namespace hosts (nsenter agents): a rank on the second host is
// SIGKILLed inside an allreduce; the survivors on both hosts (QUIC between them, shared
// memory within each) revoke, agree and shrink, then check every collective, a split and
// point to point on the shrunk communicator (tests/ft/ft_probe.cc).
#include <catch.hpp>

#include "launcher/nexrun_process.h"
#include "multihost/shared_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

TEST_CASE("shrink after a kill across two hosts", "[multihost][ft]") {
  NetnsTestbed* bed = shared_testbed(2);
  if (!bed) return;
  for (const char* victim : {"3", "0"}) {
    std::string out, err;
    Ended e = run_nexrun({"--launch-agent", NetnsTestbed::agent_template(), "-H", "mhA:2,mhB:2", "--enable-recovery",
                          "-x", "NEXAR_PEER_TIMEOUT=3", FT_PROBE, "kill_coll", victim},
                         &out, &err, 90s);
    INFO("victim " << victim << "\n" << out << err);
    CHECK(e.exit_code == 0);
    CHECK(count_of(out, "kill_coll ok") == 3);
  }
}
