// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/ring.h"

namespace nexar::shm {

bool RingWriter::room(size_t need) {
  if (cap_ - (head_ - tail_cached_) >= need) return true;
  tail_cached_ = ctl_->tail.load(std::memory_order_acquire);
  return cap_ - (head_ - tail_cached_) >= need;
}

uint8_t* RingWriter::reserve(uint16_t type, size_t payload) {
  const size_t span = record_span(sizeof(RecHdr) + payload);
  const size_t pos = static_cast<size_t>(head_ & (cap_ - 1));
  const size_t to_end = cap_ - pos;
  const size_t need = span <= to_end ? span : to_end + span;
  if (!room(need)) return nullptr;
  if (span > to_end) {  // pad to the end, the record starts at offset 0
    auto* pad = reinterpret_cast<RecHdr*>(data_ + pos);
    pad->size = static_cast<uint32_t>(to_end);
    pad->type = kRecPad;
    pad->flags = 0;
    head_ += to_end;
  }
  auto* h = reinterpret_cast<RecHdr*>(data_ + (head_ & (cap_ - 1)));
  h->size = static_cast<uint32_t>(sizeof(RecHdr) + payload);
  h->type = type;
  h->flags = 0;
  head_ += span;
  return reinterpret_cast<uint8_t*>(h + 1);
}

bool RingWriter::want_space(size_t payload) {
  // RMWs on want_space on both sides: the consumer either sees the flag or we see its tail.
  ctl_->want_space.exchange(1, std::memory_order_acq_rel);
  const size_t span = record_span(sizeof(RecHdr) + payload);
  tail_cached_ = ctl_->tail.load(std::memory_order_acquire);
  return cap_ - (head_ - tail_cached_) >= span;
}

const RecHdr* RingReader::peek(bool* bad) {
  *bad = false;
  for (;;) {
    if (tail_ == head_cached_) {
      head_cached_ = ctl_->head.load(std::memory_order_acquire);
      if (tail_ == head_cached_) return nullptr;
    }
    // A head behind our tail or more than the ring ahead is no producer's (it would have
    // us skip padding round the ring for ever).
    if (head_cached_ - tail_ > cap_) {
      *bad = true;
      return nullptr;
    }
    const size_t pos = static_cast<size_t>(tail_ & (cap_ - 1));
    const auto* h = reinterpret_cast<const RecHdr*>(data_ + pos);
    const size_t size = h->size;
    // Validated: never read past the ring end or the published head.
    if (size < sizeof(RecHdr) || size > cap_ - pos || record_span(size) > head_cached_ - tail_) {
      *bad = true;
      return nullptr;
    }
    if (h->type == kRecPad) {
      tail_ += record_span(size);  // as every record: the next header stays aligned
      ctl_->tail.store(tail_, std::memory_order_release);
      continue;
    }
    cur_span_ = static_cast<uint32_t>(record_span(size));
    return h;
  }
}

bool RingReader::consume() {
  tail_ += cur_span_;
  cur_span_ = 0;
  ctl_->tail.store(tail_, std::memory_order_release);
  return ctl_->want_space.exchange(0, std::memory_order_acq_rel) != 0;
}

}  // namespace nexar::shm
