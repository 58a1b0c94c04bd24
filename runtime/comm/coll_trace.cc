// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/coll_trace.h"

#include "collectives/select.h"
#include "comm/coll_descriptor.h"
#include "core/dtype.h"

namespace nexar::comm {

using coll::CollKind;
using trace::CallKind;

// trace::CallKind lists the collectives in coll::CollKind's order, after kNone.
static_assert(static_cast<int>(CallKind::kAllreduce) == 1 + static_cast<int>(CollKind::ALLREDUCE));
static_assert(static_cast<int>(CallKind::kAllreduceBucketed) == 1 + static_cast<int>(CollKind::ALLREDUCE_BUCKETED));
static_assert(static_cast<int>(CallKind::kBarrier) == 1 + static_cast<int>(CollKind::BARRIER));
static_assert(static_cast<int>(CallKind::kReduceScatterV) == 1 + static_cast<int>(CollKind::REDUCE_SCATTER_V));
static_assert(static_cast<int>(CallKind::kSend) == 1 + coll::kCollKindCount);

CallKind call_kind_of(CollKind k) { return static_cast<CallKind>(1 + static_cast<int>(k)); }

trace::CallDesc coll_desc(const coll::CollArgs& a, int size) {
  const coll::CollKindTraits& k = coll::kind_traits(a.kind);
  // Its bytes grow with the communicator: count * dtype size * size (the gather family).
  const bool per_rank = k.charge == coll::Charge::RANKS && !k.vector;
  trace::CallDesc d;
  d.count = a.count;
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) {
    d.count = coll::bucket_elements(a);
  } else if (k.vector) {  // counts differ per peer: the elements charged
    d.count = static_cast<uint64_t>(coll::collective_bytes(a, size)) / dtype_size(a.dtype);
  }
  d.word = trace::pack_call(call_kind_of(a.kind), k.data ? a.dtype : -1, k.op ? a.op : -1, k.root ? a.root : -1);
  if (per_rank) d.word |= trace::kPerRankBytesBit;
  // The bytes collective_bytes charges, against the bound above which the end is timed.
  const uint64_t elems = d.count * (per_rank ? static_cast<uint64_t>(size) : 1);
  if (k.data && elems * dtype_size(a.dtype) >= trace::kTimedEndBytes) d.word |= trace::kTimedEndBit;
  return d;
}

}  // namespace nexar::comm
