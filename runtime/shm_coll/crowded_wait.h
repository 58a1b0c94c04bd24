// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Whether a slot wait spins before it sleeps when a communicator has more members on this
// host than cores (comm_slots.cc). There the engine waiter's spin yields at every poll: the
// core goes to the member sharing it, or to other load for a whole slice, and the spinning
// rank takes about half the core back from a member that works while it yields (the
// scheduler keeps the two fair). That pays for hand-offs (small payloads: every member
// only publishes, and a yield passes the core to the next at once, where a sleep would add
// a ring and a wake-up per member) and loses where the members copy or reduce between the
// waits: at 1 MiB on 4 ranks and 2 cores the waits last hundreds of microseconds, and a
// spinning wait made every tenth back-to-back call take milliseconds (docs/shm.md,
// "Waiting with more ranks than cores"). So a wait sleeps at once, woken by the
// publisher's ring, when this rank itself worked long since its last wait (the members do
// alike) and the recent waits (a moving average of those that did not end at their first
// look) last longer than a wake-up costs.
#pragma once

#include <cstdint>

namespace nexar::comm {

class CrowdedWait {
 public:
  // Longer than a sleeping rank's wake-up (~50-100 us in a VM): a wait that sleeps at once
  // and is woken measures about that, so a run of short waits brings the spin back.
  static constexpr int64_t kSleepAboveNs = 100000;
  // Work since the last wait that marks a copying phase (1 MiB takes ~100 us to copy here,
  // a small payload's publication well under a microsecond).
  static constexpr int64_t kWorkNs = 30000;

  // A wait starting at now_ns (any monotonic clock, the one ended() gets).
  bool spin(int64_t now_ns) const { return avg_ns_ <= kSleepAboveNs || now_ns - last_end_ns_ < kWorkNs; }
  // A wait that did not end at its first look took ns.
  void took(int64_t ns) { avg_ns_ += (ns - avg_ns_) / 8; }
  // Every wait's end, the ones that ended at their first look included.
  void ended(int64_t now_ns) { last_end_ns_ = now_ns; }

 private:
  int64_t avg_ns_ = 0;
  int64_t last_end_ns_ = 0;
};

}  // namespace nexar::comm
