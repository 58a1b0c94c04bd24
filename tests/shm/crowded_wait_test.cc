// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The slot wait's choice with more members than cores (shm_coll/crowded_wait.h): every wait
// inside a call spins; the arrival wait of a rank that was away from the communicator for a
// while sleeps at once while the recent waits are long, and short waits bring the spin back.
#include <catch.hpp>

#include "shm_coll/crowded_wait.h"

using nexar::comm::CrowdedWait;

TEST_CASE("crowded slot waits: an arrival after time away sleeps at once while waits are long; the rest spin",
          "[shm][slots]") {
  CrowdedWait w;
  const int64_t away = 1000000000;  // a wait starting 1 s of clock in (ended() at 0)
  const int64_t soon = 30000;       // one starting 30 us after the last wait ended (a copy)
  CHECK(w.spin(away, true));        // nothing seen yet: spin
  for (int i = 0; i < 20; ++i) w.took(20000);  // small payloads: hand-offs of ~20 us
  CHECK(w.spin(away, true));
  w.took(400000);  // one long wait alone (a preemption) does not stop the spin
  CHECK(w.spin(away, true));
  for (int i = 0; i < 3; ++i) w.took(400000);  // members still working: waits of hundreds of us
  CHECK_FALSE(w.spin(away, true));
  for (int i = 0; i < 20; ++i) w.took(400000);
  CHECK_FALSE(w.spin(away, true));
  // Waits inside a call (after the rank's own copy or reduce) spin however long they were.
  CHECK(w.spin(away, false));
  CHECK(w.spin(soon, false));
  // An arrival soon after the last wait (calls back to back) spins; one after the rank's own
  // work outside the communicator does not.
  CHECK(w.spin(soon, true));
  w.ended(away);
  CHECK(w.spin(away + soon, true));
  CHECK(w.spin(away + CrowdedWait::kAwayNs - 1, true));
  CHECK_FALSE(w.spin(away + CrowdedWait::kAwayNs, true));
  // Sleeping waits that end after a wake-up (~60 us) bring the spin back within some 16.
  int n = 0;
  while (!w.spin(2 * away, true) && n < 50) {
    w.took(60000);
    ++n;
  }
  CHECK(w.spin(2 * away, true));
  CHECK(n <= 20);
}
