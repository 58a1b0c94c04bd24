// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Whether a slot wait spins before it sleeps when a communicator has more members on this
// host than cores (comm_slots.cc). There the engine waiter's spin yields at every poll: the
// core goes to the member sharing it at once, which is what the hand-offs inside a
// collective need (every member publishes, copies or reduces and passes the core on; a
// sleep would add a ring and a wake-up of 50-100 us per member). A rank that comes back
// from its own work outside the communicator (a training step's compute, 1 ms or more since
// its last slot wait) meets members that are still working; spinning there takes about half
// of a core back from each of them (the scheduler keeps the spinner and the member fair).
// So the first wait of a call, for the members' arrival, sleeps at once, woken by the last
// arrival's ring, when the rank was away that long and the recent waits (a moving average of
// those that did not end at their first look) last longer than a wake-up costs. Every other
// wait spins: deciding on the work inside a call as well (a copy of 30 us) made 8 ranks on
// 2 cores 1.3-2x slower at 64 KiB-1 MiB (docs/shm.md, "Waiting with more ranks than cores").
#pragma once

#include <cstdint>

namespace nexar::comm {

class CrowdedWait {
 public:
  // Longer than a sleeping rank's wake-up (~50-100 us in a VM): a wait that sleeps at once
  // and is woken measures about that, so a run of short waits brings the spin back.
  static constexpr int64_t kSleepAboveNs = 100000;
  // Time since the rank's last slot wait that marks work outside the communicator: longer
  // than a collective's own copies between two of its waits (1 MiB takes ~100-300 us here).
  static constexpr int64_t kAwayNs = 1000000;

  // A wait starting at now_ns (any monotonic clock, the one ended() gets); arrival: the
  // call's wait for the members' arrival.
  bool spin(int64_t now_ns, bool arrival) const {
    return !arrival || avg_ns_ <= kSleepAboveNs || now_ns - last_end_ns_ < kAwayNs;
  }
  // A wait that did not end at its first look took ns.
  void took(int64_t ns) { avg_ns_ += (ns - avg_ns_) / 8; }
  // Every wait's end, the ones that ended at their first look included.
  void ended(int64_t now_ns) { last_end_ns_ = now_ns; }

 private:
  int64_t avg_ns_ = 0;
  int64_t last_end_ns_ = 0;
};

}  // namespace nexar::comm
