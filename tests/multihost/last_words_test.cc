// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A peer on another host that exits ends its QUIC connection by ICMP port unreachable
// (no pidfd watch across hosts); the messages it sent before it exited, still in the
// survivor's socket behind that error, are delivered before PEER_LOST
// (EndpointImpl::end_unreachable). Rank 0 on mhA, rank 1 on mhB; tests/quic's
// quic_last_words_probe with "ping" (rank 0 sends to the exited rank 1 while its progress
// thread is held, so the ICMP error waits behind rank 1's datagrams).
#include <catch.hpp>

#include "launcher/nexrun_process.h"
#include "multihost/shared_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

TEST_CASE("messages a peer on another host sent before it exited are received, then PEER_LOST",
          "[multihost][quic][fault]") {
  NetnsTestbed* bed = shared_testbed(2);
  if (!bed) return;
  // Before the socket was read ahead of the ICMP error, every run whose hold caught rank
  // 0's progress thread in ppoll failed with NEXAR_ERR_PEER_LOST at message 0 of 40.
  int caught = 0;
  for (int run = 0; run < 2; ++run) {
    std::string out, err;
    Ended e = run_nexrun({"--launch-agent", NetnsTestbed::agent_template(), "-H", "mhA:1,mhB:1", QUIC_LAST_WORDS_PROBE,
                          "ping"},
                         &out, &err, 60s, {"NEXAR_TRANSPORT=quic"});
    INFO("run " << run << "\nstdout:\n" << out << "\nstderr:\n" << err);
    REQUIRE(e.finished);
    CHECK(e.exit_code == 0);  // both ranks exit 0 (and a sanitizer's report would not)
    REQUIRE(count_of(out, "40 messages, then NEXAR_ERR_PEER_LOST") == 1);
    REQUIRE(count_of(out, "last_words ok") == 1);
    caught += static_cast<int>(count_of(out, "held in ppoll"));
  }
  CHECK(caught > 0);
}
