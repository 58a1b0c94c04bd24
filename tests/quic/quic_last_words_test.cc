// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A same-host peer's last messages, sent right before it exits, are delivered before the
// survivor declares it lost (ConnectionImpl::abort reads the socket first): real ranks
// under nexrun, NEXAR_TRANSPORT=quic. See quic_last_words_probe.cc.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using namespace std::chrono_literals;

TEST_CASE("messages a same-host peer sent before it exited are received, then PEER_LOST", "[quic][fault]") {
  // Three runs: a run ends in the state the fix is for when the hold caught the progress
  // thread in ppoll (the probe says so) and rank 1's sends and exit came within the hold.
  // With the abort ahead of the read (before ConnectionImpl::abort read the socket) such
  // runs failed with NEXAR_ERR_PEER_LOST at message 0 of 40: 16 of 20 runs, 2 of 2 quiet.
  int caught = 0;
  for (int run = 0; run < 3; ++run) {
    auto r = launcher_test::run_ranks(2, {QUIC_LAST_WORDS_PROBE}, {"NEXAR_TRANSPORT=quic"}, {}, 120s);
    INFO("run " << run << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.end.finished);
    REQUIRE(count_of(r.out, "40 messages, then NEXAR_ERR_PEER_LOST") == 1);
    REQUIRE(count_of(r.out, "last_words ok") == 1);
    caught += static_cast<int>(count_of(r.out, "held in ppoll"));
  }
  WARN(caught << " of 3 runs held the progress thread in ppoll");
  CHECK(caught > 0);
}
