// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Reduce-scatter with a count per rank by ring: the reduce-scatter ring over blocks of
// recvcounts[i] elements laid end to end in sendbuf; rank r ends with block r reduced.
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

Status reduce_scatter_v_ring(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  std::vector<size_t> offs(static_cast<size_t>(p) + 1, 0);
  for (int i = 0; i < p; ++i) offs[static_cast<size_t>(i) + 1] = offs[static_cast<size_t>(i)] + a.recvcounts[i];
  const RingSpec spec{Blocks{offs[static_cast<size_t>(p)], p, offs.data(), a.recvcounts}, es, 0, /*tag=*/102};
  NX_RETURN_IF_ERROR(ring_reduce_scatter(ctx, spec, a.sendbuf, a.recvbuf, a.dtype, a.op));
  reduce_finalize(a.recvbuf, a.recvcounts[r], a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

// n = bytes of input (the sum of recvcounts).
double reduce_scatter_v_ring_cost(const CostModel& m, int p, double n) { return reduce_scatter_ring_cost(m, p, n); }

}  // namespace nexar::coll
