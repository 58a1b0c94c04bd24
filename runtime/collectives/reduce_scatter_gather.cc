// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Reduce for large messages: a ring reduce-scatter leaves block r, finished, on rank r;
// then every rank sends its block straight to the root (Rabenseifner's reduce). Each rank
// sends about n bytes instead of n log2(p); the root takes p - 1 messages.
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {
constexpr int kTagRing = 71, kTagGather = 72;
}

Status reduce_scatter_gather(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  const RingSpec spec{Blocks{a.count, p}, es, 0, kTagRing};
  const Blocks& b = spec.blocks;
  TempBuf block;
  void* mine = nullptr;
  if (r == a.root) {
    mine = at(a.recvbuf, b.off(r), es);
  } else {
    NX_RETURN_IF_ERROR(block.alloc(b.len(r) * es, "reduce-scatter-gather block"));
    mine = block.data();
  }
  NX_RETURN_IF_ERROR(ring_reduce_scatter(ctx, spec, a.sendbuf, mine, a.dtype, a.op));
  reduce_finalize(mine, b.len(r), a.dtype, a.op, static_cast<size_t>(p));
  if (r != a.root) return ctx.send(a.root, kTagGather, mine, b.len(r) * es);
  std::vector<Pending> recvs(static_cast<size_t>(p));
  for (int q = 0; q < p; ++q)
    if (q != r) NX_RETURN_IF_ERROR(ctx.irecv(q, kTagGather, at(a.recvbuf, b.off(q), es), b.len(q) * es, &recvs[q]));
  for (int q = 0; q < p; ++q)
    if (q != r) NX_RETURN_IF_ERROR(ctx.wait(&recvs[q]));
  return Status::Ok();
}

// Ring reduce-scatter ((p-1) messages, n(p-1)/p bytes sent and reduced) then p-1 blocks
// into the root.
double reduce_scatter_gather_cost(const CostModel& m, int p, double n) {
  const double f = static_cast<double>(p - 1) / p;
  return m.xfer(2.0 * (p - 1), 2 * n * f) + m.reduce(n * f);
}

}  // namespace nexar::coll
