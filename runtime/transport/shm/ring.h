// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One direction of a shared-memory link: a lock-free single-producer/single-consumer
// ring of variable-size records in a peer's inbox. A record is an 8-byte header (size,
// type) and its payload, contiguous in the ring: one that would wrap is preceded by a PAD
// record up to the end. The producer publishes `head` after writing a record (release);
// the consumer publishes `tail` after it is done with one, so the space is reused.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "transport/shm/inbox.h"

namespace nexar::shm {

struct RecHdr {
  uint32_t size;  // header + payload bytes (the record occupies size rounded up to 8)
  uint16_t type;
  uint16_t flags;
};
static_assert(sizeof(RecHdr) == 8);

inline constexpr uint16_t kRecPad = 0;
inline size_t record_span(size_t size) { return (size + 7) & ~size_t{7}; }

class RingWriter {
 public:
  RingWriter() = default;
  RingWriter(SlotCtl* ctl, uint8_t* data, size_t cap) : ctl_(ctl), data_(data), cap_(cap) {}
  // The largest payload a record may carry.
  size_t max_payload() const { return cap_ / 2 - sizeof(RecHdr); }
  // Room for a record of `payload` bytes: its payload pointer, or nullptr if the ring is
  // full now. Several reservations may precede one commit.
  uint8_t* reserve(uint16_t type, size_t payload);
  // Publishes everything reserved so far.
  void commit() { ctl_->head.store(head_, std::memory_order_release); }
  // Marks the ring full (the consumer then rings our background thread), re-checking so
  // that a consumer that drained meanwhile is not missed. True if there is room now.
  bool want_space(size_t payload);

 private:
  bool room(size_t need);
  SlotCtl* ctl_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t cap_ = 0;
  uint64_t head_ = 0;         // next write position (published by commit)
  uint64_t tail_cached_ = 0;  // the consumer's tail, as last read
};

class RingReader {
 public:
  RingReader() = default;
  RingReader(SlotCtl* ctl, const uint8_t* data, size_t cap) : ctl_(ctl), data_(data), cap_(cap) {}
  // The next record, or nullptr if none. A malformed header sets *bad.
  const RecHdr* peek(bool* bad);
  // Done with the record peek returned: its space goes back to the producer. True if the
  // producer had found the ring full (then ring its background thread).
  bool consume();

 private:
  SlotCtl* ctl_ = nullptr;
  const uint8_t* data_ = nullptr;
  size_t cap_ = 0;
  uint64_t tail_ = 0;
  uint64_t head_cached_ = 0;
  uint32_t cur_span_ = 0;
};

}  // namespace nexar::shm
