// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Messages that arrived before a matching receive was posted. Payload is kept in the
// pieces the transport delivered, and the bytes held are counted against a limit: above
// it the engine tells links to hold back their peers (back-pressure), so the store never
// grows without bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/block_pool.h"
#include "transport/transport.h"

namespace nexar::p2p {

struct UnexpectedMsg {
  int src = -1;
  transport::MsgHeader hdr;
  std::vector<std::vector<uint8_t>> pieces;
  uint64_t received = 0;
  transport::InboundMsg* inflight = nullptr;  // set while pieces are still arriving
  bool complete() const { return received == hdr.len; }
  // A message of up to kWhole bytes is kept in one block of its length from the store's
  // pool (whole_fill bytes arrived); a larger one in `pieces`, as the transport delivered.
  Block whole;
  size_t whole_fill = 0;
  // A small message kept in place (no allocation besides the record itself); then
  // pieces stays empty.
  static constexpr size_t kSmall = 64;
  uint32_t small_len = 0;
  alignas(8) uint8_t small[kSmall];
};

class UnexpectedStore {
 public:
  // Beyond this a message's block is not taken before its bytes arrive (back-pressure holds
  // a large one back part way).
  static constexpr size_t kWhole = 4u << 20;
  // keep: bytes of freed message blocks kept for the next messages (NEXAR_SCRATCH_KEEP,
  // at most the limit): freed, they are faulted in again at every message.
  UnexpectedStore(size_t limit, size_t keep) : limit_(limit), keep_(keep < limit ? keep : limit) {}
  size_t bytes() const { return bytes_; }
  size_t limit() const { return limit_; }
  bool over_limit() const { return bytes_ >= limit_; }

  void append(UnexpectedMsg* m, const uint8_t* data, size_t n);
  // Hands what m holds so far to write(offset, data, n), in order, and frees the pieces.
  template <class Write>
  size_t drain(UnexpectedMsg* m, Write&& write) {
    size_t off = m->small_len;
    if (off) write(0, m->small, off);
    if (m->whole_fill) write(0, m->whole.data.get(), m->whole_fill), off = m->whole_fill;
    for (auto& p : m->pieces) {
      write(off, p.data(), p.size());
      off += p.size();
    }
    release(m);
    return off;
  }
  void release(UnexpectedMsg* m);  // frees the pieces without copying
  size_t kept_bytes() const { return pool_.kept_bytes(); }

 private:
  size_t limit_;
  size_t keep_;
  size_t bytes_ = 0;
  BlockPool pool_{8};
};

}  // namespace nexar::p2p
