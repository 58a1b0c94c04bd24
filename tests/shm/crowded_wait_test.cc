// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The slot wait's choice with more members than cores (shm_coll/crowded_wait.h): spin
// while the recent waits are short or the rank did not work since its last wait, sleep at
// once after work while they are long, and come back.
#include <catch.hpp>

#include "shm_coll/crowded_wait.h"

using nexar::comm::CrowdedWait;

TEST_CASE("crowded slot waits: long waits make the next ones sleep at once, short ones bring the spin back",
          "[shm][slots]") {
  CrowdedWait w;
  const int64_t worked = 1000000000;  // a wait starting 1 s of clock in (ended() at 0)
  const int64_t soon = 5000;          // one starting 5 us after the last wait ended
  CHECK(w.spin(worked));  // nothing seen yet: spin
  for (int i = 0; i < 20; ++i) w.took(20000);  // small payloads: hand-offs of ~20 us
  CHECK(w.spin(worked));
  w.took(400000);  // one long wait alone (a preemption) does not stop the spin
  CHECK(w.spin(worked));
  for (int i = 0; i < 3; ++i) w.took(400000);  // 1 MiB: waits of hundreds of us
  CHECK_FALSE(w.spin(worked));
  for (int i = 0; i < 20; ++i) w.took(400000);
  CHECK_FALSE(w.spin(worked));
  // Long waits with no work before them (many ranks handing a small payload on): spin.
  CHECK(w.spin(soon));
  w.ended(worked);
  CHECK(w.spin(worked + soon));
  CHECK_FALSE(w.spin(worked + 2 * CrowdedWait::kWorkNs));
  // Sleeping waits that end after a wake-up (~60 us) bring the spin back within some 16.
  int n = 0;
  while (!w.spin(2 * worked) && n < 50) {
    w.took(60000);
    ++n;
  }
  CHECK(w.spin(2 * worked));
  CHECK(n <= 20);
}
