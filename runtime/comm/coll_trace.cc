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

namespace {

// Per kind, what its descriptor keeps (uses_data / uses_op / uses_root) and whether its
// bytes grow with the communicator (collective_bytes), computed once: a lookup per call.
struct KindTraits {
  bool data, op, root, per_rank;
};
struct TraitsTable {
  KindTraits t[coll::kCollKindCount];
  TraitsTable() {
    for (int i = 0; i < coll::kCollKindCount; ++i) {
      const auto k = static_cast<CollKind>(i);
      t[i] = {uses_data(k), uses_op(k), uses_root(k),
              k == CollKind::ALLGATHER || k == CollKind::GATHER || k == CollKind::SCATTER ||
                  k == CollKind::REDUCE_SCATTER || k == CollKind::ALLTOALL};
    }
  }
};
const TraitsTable g_traits;

}  // namespace

trace::CallDesc coll_desc(const coll::CollArgs& a, int size) {
  const KindTraits& k = g_traits.t[static_cast<int>(a.kind)];
  trace::CallDesc d;
  d.count = a.count;
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) {
    d.count = 0;
    for (size_t i = 0; i < a.nbufs; ++i) d.count += a.counts[i];
  } else if (coll::is_vector_kind(a.kind)) {  // counts differ per peer: the elements charged
    d.count = static_cast<uint64_t>(coll::collective_bytes(a, size)) / dtype_size(a.dtype);
  }
  d.word = trace::pack_call(call_kind_of(a.kind), k.data ? a.dtype : -1, k.op ? a.op : -1, k.root ? a.root : -1);
  if (k.per_rank) d.word |= trace::kPerRankBytesBit;
  // The bytes collective_bytes charges, against the bound above which the end is timed.
  const uint64_t elems = d.count * (k.per_rank ? static_cast<uint64_t>(size) : 1);
  if (k.data && elems * dtype_size(a.dtype) >= trace::kTimedEndBytes) d.word |= trace::kTimedEndBit;
  return d;
}

}  // namespace nexar::comm
