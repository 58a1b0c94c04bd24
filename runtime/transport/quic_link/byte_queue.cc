// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic_link/byte_queue.h"

namespace nexar::quic_link {

namespace {
constexpr size_t kCoalesce = 64 * 1024;
}

void ByteQueue::append(std::vector<uint8_t>&& bytes) {
  if (bytes.empty()) return;
  // The tail chunk may grow only while none of it was ever offered to QUIC (its memory
  // moves when it grows, and QUIC may hold pointers into what it was offered).
  if (!chunks_.empty() && chunks_.back().start >= sealed_ && chunks_.back().data.size() + bytes.size() <= kCoalesce) {
    auto& d = chunks_.back().data;
    d.insert(d.end(), bytes.begin(), bytes.end());
  } else {
    const size_t n = bytes.size();
    chunks_.push_back(Chunk{appended_, std::move(bytes)});
    appended_ += n;
    return;
  }
  appended_ += bytes.size();
}

size_t ByteQueue::peek(ngtcp2_vec* vecs, size_t max_vecs) {
  sealed_ = appended_;
  size_t n = 0;
  for (const Chunk& c : chunks_) {
    if (n == max_vecs) break;
    uint64_t end = c.start + c.data.size();
    if (end <= written_) continue;
    uint64_t skip = written_ > c.start ? written_ - c.start : 0;
    vecs[n].base = const_cast<uint8_t*>(c.data.data() + skip);
    vecs[n].len = static_cast<size_t>(c.data.size() - skip);
    ++n;
  }
  return n;
}

void ByteQueue::mark_acked(uint64_t n) {
  acked_ += n;
  while (!chunks_.empty() && chunks_.front().start + chunks_.front().data.size() <= acked_) chunks_.pop_front();
}

}  // namespace nexar::quic_link
