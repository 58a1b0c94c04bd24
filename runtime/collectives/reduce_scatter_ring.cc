// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Reduce-scatter by ring: p - 1 steps; rank r ends with block r finished. Works for any p.
#include "collectives/algorithms.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

Status reduce_scatter_ring(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size();
  const size_t es = dtype_size(a.dtype);
  const RingSpec spec{Blocks{a.count * static_cast<size_t>(p), p}, es, 0, /*tag=*/101};
  NX_RETURN_IF_ERROR(ring_reduce_scatter(ctx, spec, a.sendbuf, a.recvbuf, a.dtype, a.op));
  reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

// n = size * count bytes of input: (p-1) messages, n(p-1)/p bytes sent and reduced.
double reduce_scatter_ring_cost(const CostModel& m, int p, double n) {
  const double f = static_cast<double>(p - 1) / p;
  return m.xfer(p - 1, 0) + m.crowded_reduced_bytes(p) * (m.xfer(0, n * f) + m.reduce(n * f));
}

}  // namespace nexar::coll
