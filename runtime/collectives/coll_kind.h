// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The kinds of collective and what is true of each, written once: validation
// (validate.cc), the descriptor every rank agrees on (comm/coll_descriptor.cc), the trace
// (comm/coll_trace.cc), selection (select.cc) and the device path (device/) all read
// kind_traits() instead of listing kinds of their own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nexar::coll {

enum class CollKind {
  ALLREDUCE,
  BROADCAST,
  REDUCE,
  ALLGATHER,
  REDUCE_SCATTER,
  GATHER,
  SCATTER,
  ALLTOALL,
  SCAN,
  EXSCAN,
  BARRIER,
  ALLREDUCE_BUCKETED,
  ALLGATHERV,
  GATHERV,
  SCATTERV,
  ALLTOALLV,
  REDUCE_SCATTER_V,
};
constexpr int kCollKindCount = 17;

// The elements one buffer of a call spans on a rank, in terms of the call's count.
enum class Span : uint8_t {
  NONE,   // the buffer is not read or written (or its size is in arrays: vector kinds)
  COUNT,  // count elements
  RANKS,  // size * count elements: one block per rank
};
struct Extent {
  Span span = Span::NONE;
  bool root_only = false;  // the root's buffer spans it; the other ranks' spans nothing
};

// The bytes the cost model charges for a call (select.h collective_bytes).
enum class Charge : uint8_t {
  NOTHING,      // barrier
  COUNT,        // count elements
  RANKS,        // size * count elements (gatherv / scatterv: this rank's count size times)
  BUCKETS,      // the sum of counts[0..nbufs)
  RECVCOUNTS,   // the sum of recvcounts
  SENDCOUNTS,   // the sum of sendcounts
};

struct CollKindTraits {
  CollKind kind;
  const char* name;  // "allreduce", "reduce_scatter", ... (as NEXAR_ALGO spells them)
  bool data;         // takes a count and a dtype (all but barrier)
  bool op;           // takes a reduction op
  bool root;         // takes a root
  bool vector;       // a count per rank in arrays; count is the single send / receive count
  bool nccl;         // the device path may run it through NCCL (device/hier_collectives.cc)
  Charge charge;
  // This rank's input (read from sendbuf, or recvbuf where input_in_recvbuf) and output
  // (recvbuf), for the kinds with one count; the vector kinds leave them NONE.
  Extent in, out;
  bool input_in_recvbuf;  // broadcast: the root's data is in the buffer every rank receives into
};

namespace kind_table {
constexpr Extent kNone{};
constexpr Extent kCount{Span::COUNT, false};
constexpr Extent kRanks{Span::RANKS, false};
constexpr Extent kCountAtRoot{Span::COUNT, true};
constexpr Extent kRanksAtRoot{Span::RANKS, true};
using K = CollKind;
using C = Charge;

// kind, name, data, op, root, vector, nccl, charge, in, out, input_in_recvbuf
inline constexpr CollKindTraits kTraits[kCollKindCount] = {
    {K::ALLREDUCE, "allreduce", true, true, false, false, true, C::COUNT, kCount, kCount, false},
    {K::BROADCAST, "broadcast", true, false, true, false, true, C::COUNT, kCountAtRoot, kCount, true},
    {K::REDUCE, "reduce", true, true, true, false, true, C::COUNT, kCount, kCountAtRoot, false},
    {K::ALLGATHER, "allgather", true, false, false, false, true, C::RANKS, kCount, kRanks, false},
    {K::REDUCE_SCATTER, "reduce_scatter", true, true, false, false, true, C::RANKS, kRanks, kCount, false},
    {K::GATHER, "gather", true, false, true, false, false, C::RANKS, kCount, kRanksAtRoot, false},
    {K::SCATTER, "scatter", true, false, true, false, false, C::RANKS, kRanksAtRoot, kCount, false},
    {K::ALLTOALL, "alltoall", true, false, false, false, false, C::RANKS, kRanks, kRanks, false},
    {K::SCAN, "scan", true, true, false, false, false, C::COUNT, kCount, kCount, false},
    {K::EXSCAN, "exscan", true, true, false, false, false, C::COUNT, kCount, kCount, false},
    {K::BARRIER, "barrier", false, false, false, false, false, C::NOTHING, kNone, kNone, false},
    {K::ALLREDUCE_BUCKETED, "allreduce_bucketed", true, true, false, false, false, C::BUCKETS, kNone, kNone, false},
    {K::ALLGATHERV, "allgatherv", true, false, false, true, false, C::RECVCOUNTS, kNone, kNone, false},
    {K::GATHERV, "gatherv", true, false, true, true, false, C::RANKS, kNone, kNone, false},
    {K::SCATTERV, "scatterv", true, false, true, true, false, C::RANKS, kNone, kNone, false},
    {K::ALLTOALLV, "alltoallv", true, false, false, true, false, C::SENDCOUNTS, kNone, kNone, false},
    {K::REDUCE_SCATTER_V, "reduce_scatter_v", true, true, false, true, false, C::RECVCOUNTS, kNone, kNone, false},
};

constexpr bool in_enum_order() {
  for (int i = 0; i < kCollKindCount; ++i)
    if (static_cast<int>(kTraits[i].kind) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kTraits lists the kinds in CollKind's order");
static_assert(static_cast<int>(CollKind::REDUCE_SCATTER_V) + 1 == kCollKindCount);
}  // namespace kind_table

// The facts of a valid kind (the API layer makes every CollArgs with a CollKind constant).
constexpr const CollKindTraits& kind_traits(CollKind k) { return kind_table::kTraits[static_cast<int>(k)]; }

// "invalid" for a value outside the enum (a descriptor decoded from a peer's message).
inline const char* coll_kind_name(CollKind k) {
  return static_cast<unsigned>(k) < kCollKindCount ? kind_traits(k).name : "invalid";
}
inline bool is_vector_kind(CollKind k) { return kind_traits(k).vector; }
// Whether a call's counts are in arrays (a count per buffer: allreduce_bucketed; a count per
// rank: the vector kinds): no key of the kind's count alone describes it, so the caches of
// the last call of a kind (the choice, the call words, the passed checks) leave it out.
inline bool counts_in_arrays(CollKind k) { return k == CollKind::ALLREDUCE_BUCKETED || is_vector_kind(k); }

// Elements a buffer with extent e spans on a rank (is_root: the rank is the call's root).
constexpr size_t extent_elements(Extent e, size_t count, int size, bool is_root) {
  if (e.span == Span::NONE || (e.root_only && !is_root)) return 0;
  return e.span == Span::RANKS ? count * static_cast<size_t>(size) : count;
}

}  // namespace nexar::coll
