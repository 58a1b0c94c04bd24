// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// coll::ShmSlots over a communicator's SlotArea, for one collective: its descriptor, its
// deadline, and the engine's waiter (spin, then yield when ranks outnumber cores, then
// sleep on this rank's `user` doorbell, which every member rings after publishing).
// publish() only stores: the ring (a fence, then a look at every member's doorbell) waits
// until this rank's next wait ends, has spun 64 turns, or is about to sleep, so the fence
// never stalls on the store still in flight. A sleeper fences before its last look (transport::begin_sleep),
// so it either sees the store or is seen by the later ring; and a rank never sleeps with
// a ring owed, so no two ranks sleep waiting for each other's ring.
#pragma once

#include "shm_coll/shm_slots.h"
#include "comm/comm.h"
#include "shm_coll/slot_area.h"

namespace nexar::comm {

class CommCollContext;

class CommSlots final : public coll::ShmSlots {
 public:
  CommSlots(CommCollContext& ctx, Comm& comm, SlotArea& area, uint64_t descriptor)
      : ctx_(ctx), comm_(comm), a_(area), descriptor_(descriptor) {}
  ~CommSlots() override { ring_owed(); }
  CommSlots(const CommSlots&) = delete;
  CommSlots& operator=(const CommSlots&) = delete;

  uint64_t next_seq() override { return ++a_.seq; }
  size_t inline_bytes() const override { return a_.inline_bytes; }
  bool can_read_all() const override { return a_.cma; }
  shm::CollSlotBuf* buf(int r, uint64_t seq) const override {
    return shm::coll_buf(a_.slots[static_cast<size_t>(r)], a_.inline_bytes, seq);
  }
  Status arrive(uint64_t seq, uint64_t count) override;
  void publish(coll::SlotField field, uint64_t seq) override;
  Status wait(coll::SlotField field, uint64_t seq, int r) override;
  Status read(int r, void* to, uint64_t from, size_t n) override;
  Status write(int r, uint64_t to, const void* from, size_t n) override;
  shm::StageSegment& stage_segment() override { return a_.stage; }
  Status own_segment(uint64_t seq, size_t bytes, shm::StageSegment** out) override;
  Status member_segment(int r, uint64_t seq, const shm::StageRef& ref, shm::StageSegment** out) override;

 private:
  // Why waiting must stop early (the communicator broke, or member r died), else ok().
  // A slow wait first announces the collective to the engine (tell_engine).
  Status broken(int r);
  Status not_arrived(coll::SlotField field, uint64_t seq, int from, int to) const;
  // The word member m publishes field in for seq: the arrival lives in the buffer's line.
  std::atomic<uint64_t>& word(int m, coll::SlotField field, uint64_t seq) const {
    if (field == &shm::CollSlot::arrived) return buf(m, seq)->seq;
    return a_.slots[static_cast<size_t>(m)]->*field;
  }
  // The CPU member m ran on at its latest arrival (a hint; it may have moved since).
  int last_cpu(int m, coll::SlotField field, uint64_t seq) const;
  // Rings every other member's doorbell if this rank published since its last ring.
  void ring_owed();

  CommCollContext& ctx_;
  Comm& comm_;
  SlotArea& a_;
  const uint64_t descriptor_;
  bool ring_owed_ = false;
};

}  // namespace nexar::comm
