// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank's collective slot: the control plane of the shared-slot collectives
// (shm_coll/shm_slots.h, docs/shm.md "Collective slots"). It lives in its owner's inbox,
// which every rank of the host maps; only the owner writes it, everyone reads it.
//
//   (unused) | block_done | read_done | left | buffer 0 | buffer 1      (64-byte aligned parts)
//   buffer = seq, descriptor, count, flags, cpu, sendbuf, recvbuf (48 B), inline data
//
// For collective sequence s the owner fills buffer[s & 1] (descriptor, count, addresses,
// inline data), then publishes its arrival there: buffer.seq = s (release). Readers wait
// for that seq >= s (acquire) and read the buffer. The arrival word, the descriptor, the
// count and the first 16 inline bytes share one cache line, so a small collective moves
// one line from each rank to each reader. The owner reaches s + 2 only after every
// member published s + 1, i.e. finished reading s, so a buffer is never rewritten while
// read. block_done and read_done are the later phases of the direct-read collectives.
// Sequences start at 1 (a zeroed slot has seen none) and only grow, also across the
// communicators that use one area in turn (slot_area.h): a later one starts past every
// member's last. `left` is the owner's word that it destroyed the area's communicator
// (its last sequence + 1): only then may another communicator take the area.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace nexar::shm {

// Slot areas per inbox: area 0 belongs to the world communicator, the others to split
// and dup children (slot_area.h); a communicator finding none free does without slots.
inline constexpr uint32_t kCollAreas = 8;
// The largest inline payload a slot buffer may be configured with.
inline constexpr size_t kCollInlineMax = 1u << 20;

struct CollSlotBuf {
  std::atomic<uint64_t> seq;  // the owner's arrival: the last sequence it published here
  uint64_t descriptor;        // the collective's 64-bit descriptor (comm/coll_descriptor.h)
  uint64_t count;             // its full element count
  uint32_t flags;             // kCollSlotCma: the owner may read every local peer's memory
  int32_t cpu;                // the CPU the owner ran on when it arrived (-1: unknown)
  uint64_t sendbuf;           // addresses in the owner's memory (direct-read algorithms)
  uint64_t recvbuf;
  // followed by the inline payload (inline_bytes), its first 16 bytes in this line
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
};
static_assert(sizeof(CollSlotBuf) == 48);
inline constexpr uint32_t kCollSlotCma = 1;

struct CollSlot {
  // Unused since the arrival moved into the buffer's first line (CollSlotBuf::seq); kept
  // so the other fields stay where they were. ShmSlots maps the "arrived" phase onto seq.
  alignas(64) std::atomic<uint64_t> arrived;
  alignas(64) std::atomic<uint64_t> block_done;
  alignas(64) std::atomic<uint64_t> read_done;
  alignas(64) std::atomic<uint64_t> left;
  alignas(64) uint8_t buffers[1];  // two CollSlotBuf + inline payload each
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "slot sequences must be lock-free in shared memory");

// Whole lines, so every buffer starts a line (its seq and the first inline bytes share it).
inline size_t coll_buf_bytes(size_t inline_bytes) { return (sizeof(CollSlotBuf) + inline_bytes + 63) / 64 * 64; }
inline size_t coll_slot_bytes(size_t inline_bytes) {
  return (offsetof(CollSlot, buffers) + 2 * coll_buf_bytes(inline_bytes) + 4095) / 4096 * 4096;
}
inline CollSlotBuf* coll_buf(CollSlot* s, size_t inline_bytes, uint64_t seq) {
  return reinterpret_cast<CollSlotBuf*>(s->buffers + (seq & 1) * coll_buf_bytes(inline_bytes));
}

}  // namespace nexar::shm
