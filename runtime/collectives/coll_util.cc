// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/coll_util.h"

#include <algorithm>
#include <cstring>

#include "core/reduce.h"

namespace nexar::coll {

Status TempBuf::alloc(size_t bytes, const char* what) {
  if (bytes <= kInline) return Status::Ok();
  scratch_give(std::move(block_));
  block_ = scratch_take(bytes);
  if (!block_.data) return Status(NEXAR_ERR_SYSTEM, strprintf("out of memory allocating %zu bytes for %s", bytes, what));
  return Status::Ok();
}

TempBuf::~TempBuf() { scratch_give(std::move(block_)); }

void reduce_ordered(void* out, const void* mine, const void* theirs, bool theirs_is_lower, size_t count,
                    nexar_dtype_t dtype, nexar_op_t op) {
  if (theirs_is_lower)
    reduce(out, theirs, mine, count, dtype, op);
  else
    reduce(out, mine, theirs, count, dtype, op);
}

void copy_elems(void* dst, const void* src, size_t count, size_t esize) {
  if (dst != src && count > 0) copy_bytes(dst, src, count * esize);
}

void copy_bytes(void* dst, const void* src, size_t n) {
  if (n == 0) return;  // either pointer may be null then (an empty call's buffers)
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  // Pieces in ascending order are right unless dst overlaps the end of src.
  if (n <= kCopyPiece || n > kCopyWhole || (d > s && d < s + n)) {
    std::memmove(d, s, n);
    return;
  }
  for (size_t off = 0; off < n; off += kCopyPiece) std::memmove(d + off, s + off, std::min(kCopyPiece, n - off));
}

}  // namespace nexar::coll
