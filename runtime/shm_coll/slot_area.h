// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A communicator's shared-memory slot area: which area of every member's inbox it uses
// (shm_coll/coll_slot.h), the members' slots, doorbells and pids in comm-rank order,
// and the sequence of its slot collectives, the staging segment of allreduce shm_stage and
// the segments alltoallv shm_direct pushes its send data through.
// Communicators whose members all share one host over shared memory get one: the world
// communicator area 0, split and dup children the lowest area free on every member
// (SlotAreaPool, agreed when they are made), see docs/shm.md. Destroying the communicator
// frees its staging segment and hands the area back.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "shm_coll/coll_slot.h"
#include "shm_coll/crowded_wait.h"
#include "shm_coll/stage_segment.h"
#include "transport/doorbell.h"

namespace nexar::shm {
class ShmHub;
}

namespace nexar::comm {

// Which of the kCollAreas slot areas this process's communicators hold, and the last
// sequence each area saw. An area comes back when its communicator is destroyed, but is
// lent again only once every member of that communicator stored its `left` word (so none
// still reads the slots). One per world, shared by its communicators.
class SlotAreaPool {
 public:
  SlotAreaPool() = default;
  SlotAreaPool(const SlotAreaPool&) = delete;
  SlotAreaPool& operator=(const SlotAreaPool&) = delete;
  ~SlotAreaPool();
  static constexpr uint64_t kTaken = ~uint64_t{0};
  // Per area: the sequence a new communicator there must start after, or kTaken. Every
  // area offered is held until settle(): a communicator made meanwhile on another thread
  // finds it taken.
  std::array<uint64_t, shm::kCollAreas> offer();
  // Ends an offer: `chosen` (-1: none) stays taken, the other offered areas are free again.
  void settle(const std::array<uint64_t, shm::kCollAreas>& offered, int chosen);
  // Takes area a unconditionally (the world communicator's area 0).
  void take(uint32_t a);
  // Gives area a back after a communicator there ended at sequence last; members' slots
  // must each show left >= leave_mark before the area is lent again.
  void give_back(uint32_t a, uint64_t last, std::vector<shm::CollSlot*> members, uint64_t leave_mark);
  // Keeps a destroyed communicator's push segments (alltoallv shm_direct), descriptors
  // open, until every live reader (slots of the members other than the owner, their world
  // ranks in `world`) published read_done >= mark: a member may not have mapped the last
  // push yet when its owner destroys the communicator (a broken one has no closing
  // barrier). Nothing waits here: kept ones are looked at again at every retire() and
  // offer(). The pool's destructor (the world's end, before the process may exit and take
  // the descriptors along) waits for the readers still kept, each until it read, died or
  // NEXAR_TIMEOUT passed.
  void retire(std::vector<std::unique_ptr<shm::StageSegment>> segments, std::vector<shm::CollSlot*> readers,
              std::vector<int> world, const shm::ShmHub* hub, uint64_t mark);

 private:
  bool free_locked(uint32_t a) const;
  void drop_read_locked();  // frees the retired segments whose readers are done
  struct Entry {
    bool taken = false;
    uint64_t last = 0;
    std::vector<shm::CollSlot*> leavers;
    uint64_t leave_mark = 0;
  };
  struct Retired {
    std::vector<std::unique_ptr<shm::StageSegment>> segments;
    std::vector<shm::CollSlot*> readers;
    std::vector<int> world;
    const shm::ShmHub* hub;
    uint64_t mark;
  };
  mutable std::mutex mu_;
  std::array<Entry, shm::kCollAreas> e_;
  std::vector<Retired> retired_;
};

struct SlotArea {
  SlotArea() = default;
  SlotArea(const SlotArea&) = delete;
  SlotArea& operator=(const SlotArea&) = delete;
  // Hands the segments of this rank's last push to the pool while a member may still read
  // them (see last_push; never waits), stores this rank's `left` word and gives the area
  // back to the pool (when it holds it).
  ~SlotArea();

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
  // With more members than cores (no spin_first): whether a wait spins before it sleeps.
  CrowdedWait crowded;
  std::vector<shm::CollSlot*> slots;  // per comm rank
  std::vector<transport::Doorbell*> bells;
  std::vector<pid_t> pids;
  std::vector<int> world;  // world rank per comm rank
  int me = 0;              // this rank's index in the vectors above (its comm rank)
  uint64_t start = 0;      // the sequence this communicator started after
  uint64_t seq = 0;        // last slot collective's sequence (one collective at a time per comm)
  SlotAreaPool* pool = nullptr;  // the area goes back there (null: it passed to a shrunk successor)
  shm::StageSegment stage;       // allreduce shm_stage's segment: owned on comm rank 0, mapped elsewhere
  // alltoallv shm_direct's copies of this rank's send data, one segment per sequence
  // parity (ShmSlots::own_segment, made on first use), and this rank's mappings of every
  // member's.
  std::array<std::unique_ptr<shm::StageSegment>, 2> pushed;
  std::array<std::vector<std::unique_ptr<shm::StageSegment>>, 2> members_pushed;
  // The last sequence this rank pushed at (pending: until every member arrived there, so
  // every member reads it and then publishes read_done). A member may not have mapped the
  // segment yet when its owner returns, so the destructor hands the segments to the pool
  // (SlotAreaPool::retire) unless every live member's read_done already reached it: the
  // descriptor (the segment's name, /proc/<pid>/fd) stays open for the late reader.
  uint64_t pending_push = 0, last_push = 0;
};

// Whether a communicator with these members (world ranks) may have a slot area: all on
// this host over shared memory, at least 2, NEXAR_SHM_COLL=1. Alike on every member.
bool slot_area_eligible(const shm::ShmHub* hub, const std::vector<int>& members);

// Area `area` of the pool (already taken there) for an eligible communicator with these
// members, this rank at index me, its sequences going on after start.
std::unique_ptr<SlotArea> make_slot_area(shm::ShmHub* hub, SlotAreaPool* pool, uint32_t area,
                                         const std::vector<int>& members, int me, uint64_t start);

// The area of a revoked communicator handed to its shrunk successor (members: a subset of
// the parent's, world ranks): same area, sequences going on after last_seq, which must
// be at least every member's last sequence there (the survivors agree on it), so no word
// left by an interrupted collective looks like a new arrival. nullptr for fewer than 2.
// The parent keeps no claim on the area (the child gives it back) and passes its push
// segments on (a survivor may still map the last one; the child rewrites a parity only
// after every member arrived at the sequence between).
std::unique_ptr<SlotArea> inherit_slot_area(SlotArea& parent, const std::vector<int>& members, int me,
                                            uint64_t last_seq);

}  // namespace nexar::comm
