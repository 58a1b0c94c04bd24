// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allgatherv by ring: the allgather ring with block i being recvcounts[i] elements at
// rdispls[i], so nothing between the blocks is written. p - 1 steps; a step passes the
// block of one rank, so one long block slows every step it is in flight.
#include "collectives/algorithms.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"

namespace nexar::coll {

Status allgatherv_ring(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  const RingSpec spec{Blocks{0, p, a.rdispls, a.recvcounts}, es, 0, /*tag=*/82};
  void* mine = at(a.recvbuf, a.rdispls[r], es);
  if (a.sendbuf != a.recvbuf) copy_elems(mine, a.sendbuf, a.recvcounts[r], es);
  return ring_allgather(ctx, spec, a.recvbuf);
}

// n = bytes gathered (the sum of recvcounts).
double allgatherv_ring_cost(const CostModel& m, int p, double n) { return m.xfer(p - 1, n * (p - 1) / p); }

}  // namespace nexar::coll
