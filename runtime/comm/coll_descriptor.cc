// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/coll_descriptor.h"

#include "core/dtype.h"

namespace nexar::comm {

using coll::CollKind;

namespace {

// A barrier's count bits are otherwise 0: the closing barrier sets the lowest.
constexpr uint64_t kClosingBit = 1;

std::string describe(uint64_t d) {
  const auto kind_bits = static_cast<int>(d >> 59);
  if (kind_bits >= coll::kCollKindCount) return strprintf("an unknown collective (kind %d)", kind_bits);
  const auto kind = static_cast<CollKind>(kind_bits);
  if (kind == CollKind::BARRIER && (d & kClosingBit)) return "nexar_comm_destroy (its closing barrier)";
  const coll::CollKindTraits& t = coll::kind_traits(kind);
  auto dtype = static_cast<nexar_dtype_t>((d >> 55) & 0xf);
  auto op = static_cast<nexar_op_t>((d >> 52) & 0x7);
  unsigned root = static_cast<unsigned>((d >> 32) & 0xfffff);
  unsigned count = static_cast<unsigned>(d & 0xffffffffu);
  std::string s = std::string(t.name) + "(";
  if (t.vector) s += dtype_name(dtype);  // counts per rank: checked pair by pair
  else if (t.data) s += strprintf("count %u, %s", count, dtype_name(dtype));
  if (t.op) s += std::string(", ") + op_name(op);
  if (t.root) s += strprintf(", root %u", root - 1);
  return s + ")";
}

}  // namespace

static_assert(NEXAR_BXOR <= 0x7, "the descriptor holds the op in 3 bits");

uint64_t pack_descriptor(const coll::CollArgs& a) {
  const coll::CollKindTraits& t = coll::kind_traits(a.kind);
  uint64_t count = a.kind == CollKind::ALLREDUCE_BUCKETED ? coll::bucket_elements(a) : a.count;
  if (t.vector) count = 0;  // ranks pass different counts (vcount_check.h)
  uint64_t d = static_cast<uint64_t>(a.kind) << 59;
  if (t.data) d |= (static_cast<uint64_t>(a.dtype) & 0xf) << 55 | (count & 0xffffffffu);
  if (t.op) d |= (static_cast<uint64_t>(a.op) & 0x7) << 52;
  if (t.root) d |= (static_cast<uint64_t>(a.root + 1) & 0xfffff) << 32;
  if (a.kind == CollKind::BARRIER && a.closing) d |= kClosingBit;
  return d;
}

std::string describe_mismatch(uint64_t mine, uint64_t theirs, int their_world_rank, int my_world_rank) {
  return strprintf("world rank %d called %s where world rank %d called %s", their_world_rank, describe(theirs).c_str(),
                   my_world_rank, describe(mine).c_str());
}

}  // namespace nexar::comm
