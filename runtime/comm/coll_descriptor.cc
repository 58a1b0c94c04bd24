// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/coll_descriptor.h"

#include "core/dtype.h"

namespace nexar::comm {

using coll::CollKind;

bool uses_data(CollKind k) { return k != CollKind::BARRIER; }

namespace {

std::string describe(uint64_t d) {
  auto kind = static_cast<CollKind>(d >> 59);
  auto dtype = static_cast<nexar_dtype_t>((d >> 55) & 0xf);
  auto op = static_cast<nexar_op_t>((d >> 52) & 0x7);
  unsigned root = static_cast<unsigned>((d >> 32) & 0xfffff);
  unsigned count = static_cast<unsigned>(d & 0xffffffffu);
  std::string s = std::string(coll::coll_kind_name(kind)) + "(";
  if (coll::is_vector_kind(kind)) s += dtype_name(dtype);  // counts per rank: checked pair by pair
  else if (uses_data(kind)) s += strprintf("count %u, %s", count, dtype_name(dtype));
  if (uses_op(kind)) s += std::string(", ") + op_name(op);
  if (uses_root(kind)) s += strprintf(", root %u", root - 1);
  return s + ")";
}

}  // namespace

uint64_t pack_descriptor(const coll::CollArgs& a) {
  uint64_t count = a.count;
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) {
    count = 0;
    for (size_t i = 0; i < a.nbufs; ++i) count += a.counts[i];
  }
  if (coll::is_vector_kind(a.kind)) count = 0;  // ranks pass different counts (vcount_check.h)
  uint64_t d = static_cast<uint64_t>(a.kind) << 59;
  if (uses_data(a.kind)) d |= (static_cast<uint64_t>(a.dtype) & 0xf) << 55 | (count & 0xffffffffu);
  if (uses_op(a.kind)) d |= (static_cast<uint64_t>(a.op) & 0x7) << 52;
  if (uses_root(a.kind)) d |= (static_cast<uint64_t>(a.root + 1) & 0xfffff) << 32;
  return d;
}

std::string describe_mismatch(uint64_t mine, uint64_t theirs, int their_world_rank, int my_world_rank) {
  return strprintf("world rank %d called %s where world rank %d called %s", their_world_rank, describe(theirs).c_str(),
                   my_world_rank, describe(mine).c_str());
}

}  // namespace nexar::comm
