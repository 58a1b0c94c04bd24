// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The layout of a rank's inbox: one shared-memory segment per rank, created by its owner
// and mapped by every rank on the same host. It holds the owner's doorbells and one
// single-producer/single-consumer ring per local peer (that peer writes, the owner reads).
//
//   InboxHeader | SlotCtl[nslots] | ring 0 | ring 1 | ... | collective slot area(s)
//   (rings and the slot areas page-aligned)
//
// Slot s belongs to the s-th local rank other than the owner, in world-rank order. The
// collective slot areas (shm_coll/coll_slot.h) are written by the owner only and read by every
// local peer: the control plane of the shared-slot collectives.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shm_coll/coll_slot.h"
#include "transport/doorbell.h"

namespace nexar::shm {

inline constexpr uint64_t kInboxMagic = 0x3158424e49584e4eULL;  // "NNXINBX1"
inline constexpr uint32_t kInboxVersion = 4;

struct InboxHeader {
  std::atomic<uint64_t> magic;  // stored last (release) by the owner: the rest is valid
  uint32_t version;
  uint32_t nslots;
  uint64_t ring_bytes;
  uint64_t coll_inline;  // inline payload bytes of each collective slot buffer
  int32_t owner_rank;
  int32_t owner_pid;
  // A value in the owner's private memory, to test that peers may read it (CMA).
  uint64_t probe_addr;
  uint64_t probe_value;
  alignas(64) std::atomic<uint32_t> mapped;  // peers that mapped this inbox (a futex word)
  alignas(64) transport::Doorbell user;                 // the owner's waiting threads sleep here
  alignas(64) transport::Doorbell bg;                   // the owner's background progress thread
  // Bumped by the owner's peer watch every tick (peer_watch.h); peers that see it stand
  // still for NEXAR_PEER_TIMEOUT declare the owner failed. Its own line: the writes stay
  // off the lines the message path uses.
  alignas(64) std::atomic<uint64_t> heartbeat;
};

struct SlotCtl {
  alignas(64) std::atomic<uint64_t> head;  // bytes written by the producer (the peer)
  alignas(64) std::atomic<uint64_t> tail;  // bytes consumed by the owner
  alignas(64) std::atomic<uint32_t> want_space;  // producer found the ring full
};

inline constexpr size_t kPage = 4096;
inline size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }
inline size_t inbox_rings_offset(uint32_t nslots) {
  return round_up(sizeof(InboxHeader) + nslots * sizeof(SlotCtl), kPage);
}
inline size_t inbox_coll_offset(uint32_t nslots, size_t ring_bytes) {
  return round_up(inbox_rings_offset(nslots) + nslots * ring_bytes, kPage);
}
inline size_t inbox_bytes(uint32_t nslots, size_t ring_bytes, size_t coll_inline) {
  return inbox_coll_offset(nslots, ring_bytes) + kCollAreas * coll_slot_bytes(coll_inline);
}

// Typed views of a mapped inbox.
struct InboxView {
  uint8_t* base = nullptr;
  InboxHeader* hdr() const { return reinterpret_cast<InboxHeader*>(base); }
  SlotCtl* slot(uint32_t s) const {
    return reinterpret_cast<SlotCtl*>(base + sizeof(InboxHeader)) + s;
  }
  uint8_t* ring(uint32_t s) const {
    return base + inbox_rings_offset(hdr()->nslots) + s * hdr()->ring_bytes;
  }
  CollSlot* coll_slot(uint32_t area) const {
    const size_t off = inbox_coll_offset(hdr()->nslots, hdr()->ring_bytes) + area * coll_slot_bytes(hdr()->coll_inline);
    return reinterpret_cast<CollSlot*>(base + off);
  }
};

}  // namespace nexar::shm
