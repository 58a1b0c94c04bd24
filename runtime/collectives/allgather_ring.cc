// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allgather by ring: p - 1 steps, each passing one rank's block to the right.
// Bandwidth-optimal for any p.
#include "collectives/algorithms.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"

namespace nexar::coll {

Status allgather_ring(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  const RingSpec spec{Blocks{a.count * static_cast<size_t>(p), p}, es, 0, /*tag=*/81};
  copy_elems(at(a.recvbuf, spec.blocks.off(r), es), a.sendbuf == a.recvbuf ? at(a.recvbuf, spec.blocks.off(r), es)
                                                                            : a.sendbuf, a.count, es);
  return ring_allgather(ctx, spec, a.recvbuf);
}

// n = size * count bytes gathered.
double allgather_ring_cost(const CostModel& m, int p, double n) {
  return m.xfer(p - 1, n * (p - 1) / p);
}

}  // namespace nexar::coll
