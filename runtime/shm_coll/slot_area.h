// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A communicator's shared-memory slot area: which area of every member's inbox it uses
// (shm_coll/coll_slot.h), the members' slots, doorbells and pids in comm-rank order,
// and the sequence of its slot collectives. Only communicators whose members are exactly
// the ranks of one host using shared memory get one; today that is the world
// communicator (area 0), see docs/shm.md.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "shm_coll/coll_slot.h"
#include "transport/doorbell.h"

namespace nexar::shm {
class ShmHub;
}

namespace nexar::comm {

struct SlotArea {
  shm::ShmHub* hub = nullptr;
  uint32_t area = 0;
  size_t inline_bytes = 0;
  bool cma = false;  // this rank may read every member (the same answer everywhere in practice)
  // Whether a wait first spins on the members' slot lines alone, polling nothing else:
  // only with no more members than cores (else the spin takes the core a member needs;
  // the cores this rank may use, or the host's when it is bound to one).
  // It adapts like the engine's waiter: spin_score counts recent spins that caught the
  // members (+1) or not (-2); at or below zero only every 16th wait tries again (a busy
  // host, where the spin only delays the yield that lets a member run).
  // long_spin: the last wait that went past the spin still ended within a millisecond:
  // the member was only late (a sleeping rank's wake-up takes ~50-100 us in a VM), so the
  // spin waits longer than a wake-up until a long spin misses. Without it two ranks that
  // each sleep before the other wakes stay at one wake-up per collective.
  bool spin_first = false;
  int spin_score = 1;
  unsigned spin_waits = 0;
  bool long_spin = false;
  std::vector<shm::CollSlot*> slots;  // per comm rank
  std::vector<transport::Doorbell*> bells;
  std::vector<pid_t> pids;
  std::vector<int> world;  // world rank per comm rank
  uint64_t seq = 0;        // last slot collective's sequence (one collective at a time per comm)
};

// The slot area for a communicator with these members (world ranks) created at context
// base ctx_base, or nullptr where it gets none (no shared memory, NEXAR_SHM_COLL=0, a
// member off this host or not on shared memory, or not the world communicator).
std::unique_ptr<SlotArea> make_slot_area(shm::ShmHub* hub, uint32_t ctx_base, const std::vector<int>& members);

// The area of a revoked communicator handed to its shrunk successor (members: a subset of
// the parent's, world ranks): same area, sequences going on after last_seq, which must
// be at least every member's last sequence there (the survivors agree on it), so no word
// left by an interrupted collective looks like a new arrival. nullptr for fewer than 2.
std::unique_ptr<SlotArea> inherit_slot_area(const SlotArea& parent, const std::vector<int>& members,
                                            uint64_t last_seq);

}  // namespace nexar::comm
