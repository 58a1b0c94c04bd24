// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Outgoing bytes of one stream that the link owns (the control stream's frames): kept
// until the peer acknowledges them, since QUIC may retransmit any unacknowledged byte.
#pragma once

#include <ngtcp2/ngtcp2.h>

#include <cstdint>
#include <deque>
#include <vector>

namespace nexar::quic_link {

class ByteQueue {
 public:
  // Appends bytes (small frames are coalesced into the last chunk not yet offered).
  void append(std::vector<uint8_t>&& bytes);
  bool all_acked() const { return acked_ >= appended_; }
  uint64_t appended() const { return appended_; }
  uint64_t written() const { return written_; }
  // Fills vecs with unwritten bytes; returns how many vecs were used. Every chunk offered
  // becomes immutable: QUIC keeps pointers into it for retransmission until it is acked.
  size_t peek(ngtcp2_vec* vecs, size_t max_vecs);
  void mark_written(size_t n) { written_ += n; }
  // The peer acknowledged n more bytes: frees chunks wholly acknowledged.
  void mark_acked(uint64_t n);

 private:
  struct Chunk {
    uint64_t start;  // offset of data[0] in the stream
    std::vector<uint8_t> data;
  };
  std::deque<Chunk> chunks_;
  uint64_t appended_ = 0, written_ = 0, acked_ = 0;
  uint64_t sealed_ = 0;  // bytes below this were offered to QUIC: their chunks never change
};

}  // namespace nexar::quic_link
