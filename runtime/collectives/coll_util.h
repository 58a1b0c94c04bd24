// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Small helpers shared by the algorithms: balanced block partitions, byte offsets,
// temporary buffers whose allocation failure is a Status, and the op-order rule.
#pragma once

#include <cstddef>
#include <memory>

#include "collectives/coll_context.h"
#include "collectives/scratch_cache.h"
#include "core/status.h"
#include "nexar/nexar.h"

namespace nexar::coll {

// count elements cut into n consecutive blocks whose lengths differ by at most one
// (the first count % n blocks are one longer). off(n) == count.
// With voff and vlen set (the collectives with a count per rank), block i is instead
// vlen[i] elements at voff[i]: any lengths, any order, gaps between them; span() is then
// meaningless and only off, len and max_len apply.
struct Blocks {
  size_t count;
  int n;
  const size_t* voff = nullptr;
  const size_t* vlen = nullptr;
  size_t off(int i) const {
    if (voff) return voff[i];
    const size_t q = count / static_cast<size_t>(n), r = count % static_cast<size_t>(n);
    const size_t ui = static_cast<size_t>(i);
    return q * ui + (ui < r ? ui : r);
  }
  size_t len(int i) const { return vlen ? vlen[i] : off(i + 1) - off(i); }
  // Elements of blocks [lo, hi).
  size_t span(int lo, int hi) const { return off(hi) - off(lo); }
  // The longest block (the first one when the blocks are balanced).
  size_t max_len() const {
    size_t m = len(0);
    for (int i = 1; vlen && i < n; ++i) m = vlen[i] > m ? vlen[i] : m;
    return m;
  }
};

inline unsigned char* at(void* base, size_t elems, size_t esize) {
  return static_cast<unsigned char*>(base) + elems * esize;
}
inline const unsigned char* at(const void* base, size_t elems, size_t esize) {
  return static_cast<const unsigned char*>(base) + elems * esize;
}

// Scratch memory of an algorithm. alloc() returns NEXAR_ERR_SYSTEM (naming what it was for)
// instead of throwing when memory runs out. Up to kInline bytes live inside the object (on
// the stack), so the small messages that latency is made of allocate nothing; a larger block
// goes back to the thread's scratch cache (scratch_cache.h) when the buffer dies.
class TempBuf {
 public:
  static constexpr size_t kInline = 256;
  TempBuf() = default;
  TempBuf(TempBuf&&) = default;
  TempBuf& operator=(TempBuf&&) = default;
  ~TempBuf();
  Status alloc(size_t bytes, const char* what);
  unsigned char* data() { return block_.data ? block_.data.get() : inline_; }

 private:
  Block block_;
  alignas(std::max_align_t) unsigned char inline_[kInline];
};

inline int mod(int a, int p) { return ((a % p) + p) % p; }

// out = a op b with the operand of the lower rank first (see core/reduce.h), so every
// rank that combines the same two values gets the same bits.
void reduce_ordered(void* out, const void* mine, const void* theirs, bool theirs_is_lower, size_t count,
                    nexar_dtype_t dtype, nexar_op_t op);

// Copies unless the two pointers are equal (memmove: callers may alias), through copy_bytes.
void copy_elems(void* dst, const void* src, size_t count, size_t esize);

// memcpy of n bytes (the ranges may overlap; nothing, and either pointer may be null, when
// n is 0) in pieces of kCopyPiece bytes. glibc 2.36 on
// x86 copies a block below its rep_movsb_stop_threshold (the L2 size: 1 MiB on this
// machine's AMD EPYC) with `rep movsb` and a larger one with a vector loop that is ~20%
// slower here, in cache or not (best of 30, page-aligned, one core: 1 MiB 23.6 us whole,
// 19.5 us in 128 KiB pieces; 16 MiB 604 us whole, 501 us in pieces). Above kCopyWhole
// the copy stays whole, so glibc may still stream it past the cache with non-temporal
// stores (from its non_temporal_threshold: 127 MiB here), which pieces would lose.
inline constexpr size_t kCopyPiece = size_t{128} << 10;
inline constexpr size_t kCopyWhole = size_t{64} << 20;
void copy_bytes(void* dst, const void* src, size_t n);

}  // namespace nexar::coll
