// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the shared-slot algorithms (the shm_flat, shm_direct and shm_stage collectives)
// see of a communicator whose ranks all share one host: one slot per member
// (shm_coll/coll_slot.h) and bounded waits on them. CollContext::shm_slots() returns
// it, or nullptr where the communicator has none (then those algorithms do not apply).
//
// Every slot collective starts with arrive(): the rank's descriptor goes into its slot
// buffer with the sequence; the call returns once every member arrived with the same
// descriptor (else NEXAR_ERR_MISMATCH on every rank, naming both calls).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "shm_coll/coll_slot.h"
#include "shm_coll/stage_segment.h"

namespace nexar::coll {

using SlotField = std::atomic<uint64_t> shm::CollSlot::*;

class ShmSlots {
 public:
  virtual ~ShmSlots() = default;
  // The sequence of the slot collective starting now (1, 2, ... alike on every member).
  virtual uint64_t next_seq() = 0;
  // Inline payload bytes of a slot buffer (NEXAR_SHM_COLL_INLINE).
  virtual size_t inline_bytes() const = 0;
  // Whether every member may read every other member's memory (CMA).
  virtual bool can_read_all() const = 0;
  // Member r's buffer for sequence seq (r's own is written only by r, before arrive()).
  virtual shm::CollSlotBuf* buf(int r, uint64_t seq) const = 0;
  // Publishes this rank's arrival at seq (its descriptor and count; sendbuf, recvbuf and
  // inline data already in buf(rank, seq)), waits for every member's, compares descriptors.
  virtual Status arrive(uint64_t seq, uint64_t count) = 0;
  // Publishes this rank's field = seq (release) and rings every member's doorbell.
  virtual void publish(SlotField field, uint64_t seq) = 0;
  // Waits until member r's field >= seq (r < 0: every member's). Bounded by the
  // collective's deadline; ends early when the communicator breaks or a member dies.
  virtual Status wait(SlotField field, uint64_t seq, int r = -1) = 0;
  // Reads n bytes at address `from` of member r's memory into `to` (CMA).
  virtual Status read(int r, void* to, uint64_t from, size_t n) = 0;
  // Writes n bytes at `from` into address `to` of member r's memory (CMA).
  virtual Status write(int r, uint64_t to, const void* from, size_t n) = 0;
  // The communicator's staging segment (stage_segment.h), freed with the communicator.
  virtual shm::StageSegment& stage_segment() = 0;
  // This rank's own segment for seq's parity, with at least `bytes` data bytes (created or
  // grown here, capacity a power of two). Members map it (member_segment) and read it
  // during seq; its owner rewrites it at seq + 2, when every member arrived at seq + 1 and
  // so finished reading it. Mappings keep its memory after its owner dropped or replaced
  // it, so a reader never depends on the owner still being there. A failure (no memory
  // for it) leaves the communicator usable.
  virtual Status own_segment(uint64_t seq, size_t bytes, shm::StageSegment** out) = 0;
  // Member r's segment that ref names (r's own_segment for seq's parity), mapped here once
  // and again only when ref names another.
  virtual Status member_segment(int r, uint64_t seq, const shm::StageRef& ref, shm::StageSegment** out) = 0;
};

}  // namespace nexar::coll
