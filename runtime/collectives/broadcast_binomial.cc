// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Broadcast by binomial tree: ceil(log2 p) rounds, the whole message each round. Best
// for small and medium messages.
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/binomial.h"
#include "core/dtype.h"

namespace nexar::coll {
namespace {
constexpr int kTag = 41;
}

Status broadcast_binomial(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size();
  const size_t bytes = a.count * dtype_size(a.dtype);
  const int v = tree_vrank(ctx.rank(), a.root, p);
  const int mask = subtree_mask(v, p);
  if (v != 0) NX_RETURN_IF_ERROR(ctx.recv(tree_real_rank(v - mask, a.root, p), kTag, a.recvbuf, bytes));
  std::vector<Pending> sends;
  for (int m = mask / 2; m >= 1; m /= 2) {
    if (v + m >= p) continue;
    sends.emplace_back();
    NX_RETURN_IF_ERROR(ctx.isend(tree_real_rank(v + m, a.root, p), kTag, a.recvbuf, bytes, &sends.back()));
  }
  for (Pending& s : sends) NX_RETURN_IF_ERROR(ctx.wait(&s));
  return Status::Ok();
}

double broadcast_binomial_cost(const CostModel& m, int p, double n) {
  const int k = ceil_log2(p);
  return m.xfer(k, k * n);
}

}  // namespace nexar::coll
