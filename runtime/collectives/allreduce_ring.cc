// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce by ring: reduce-scatter then allgather over p balanced blocks. Each block's
// final value is computed once, by its owner, and then copied around the ring, so every
// rank ends with the same bits. Bandwidth-optimal; 2(p-1) latency terms.
#include "collectives/algorithms.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

Status allreduce_ring(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size();
  const size_t es = dtype_size(a.dtype);
  const RingSpec spec{Blocks{a.count, p}, es, 0, /*tag=*/11};
  const int r = ctx.rank();
  void* mine = at(a.recvbuf, spec.blocks.off(r), es);
  NX_RETURN_IF_ERROR(ring_reduce_scatter(ctx, spec, a.sendbuf, mine, a.dtype, a.op));
  reduce_finalize(mine, spec.blocks.len(r), a.dtype, a.op, static_cast<size_t>(p));
  return ring_allgather(ctx, spec, a.recvbuf);
}

// 2(p-1) messages, 2n(p-1)/p bytes sent, n(p-1)/p bytes reduced; the allgather half reads
// what other ranks reduced in the call (CostModel::reduced_results_extra).
double allreduce_ring_cost(const CostModel& m, int p, double n) {
  const double f = static_cast<double>(p - 1) / p;
  return m.xfer(2.0 * (p - 1), 2 * n * f) + m.reduce(n * f) + m.reduced_results_extra(p, n);
}

}  // namespace nexar::coll
