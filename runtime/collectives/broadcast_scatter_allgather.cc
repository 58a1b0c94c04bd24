// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Broadcast for large messages: the root's buffer is cut into p blocks, scattered down a
// binomial tree (block v to virtual rank v; every subtree's blocks are contiguous) and
// then gathered everywhere by a ring (van de Geijn). Each rank sends about 2n bytes in
// total instead of n log2(p).
#include "collectives/algorithms.h"
#include "collectives/binomial.h"
#include "collectives/ring_phases.h"
#include "core/dtype.h"

namespace nexar::coll {
namespace {
constexpr int kTagScatter = 51, kTagRing = 52;
}

Status broadcast_scatter_allgather(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size();
  if (p == 1) return Status::Ok();
  const size_t es = dtype_size(a.dtype);
  const Blocks b{a.count, p};
  const int v = vrank(ctx.rank(), a.root, p);
  const int mask = subtree_mask(v, p);
  if (v != 0) {
    const int end = subtree_end(v, p);
    NX_RETURN_IF_ERROR(ctx.recv(real_rank(v - mask, a.root, p), kTagScatter, at(a.recvbuf, b.off(v), es),
                                b.span(v, end) * es));
  }
  for (int m = mask / 2; m >= 1; m /= 2) {
    const int child = v + m;
    if (child >= p) continue;
    const int end = subtree_end(child, p);
    NX_RETURN_IF_ERROR(ctx.send(real_rank(child, a.root, p), kTagScatter, at(a.recvbuf, b.off(child), es),
                                b.span(child, end) * es));
  }
  const RingSpec spec{b, es, a.root, kTagRing};
  return ring_allgather(ctx, spec, a.recvbuf);
}

// log2(p) + p - 1 messages; n(p-1)/p bytes in the scatter and again in the allgather.
double broadcast_scatter_allgather_cost(const CostModel& m, int p, double n) {
  const double f = static_cast<double>(p - 1) / p;
  return m.xfer(ceil_log2(p) + (p - 1), 2 * n * f);
}

}  // namespace nexar::coll
