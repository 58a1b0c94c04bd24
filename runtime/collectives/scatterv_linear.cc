// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Scatterv, linear: the root sends every member its block from sdispls[j] at once; each
// member receives once. See gatherv_linear.cc for why not a tree.
#include <vector>

#include "collectives/algorithms.h"
#include "core/dtype.h"

namespace nexar::coll {

constexpr int kTagScatterv = 151;

Status scatterv_linear(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  if (r != a.root) return a.count ? ctx.recv(a.root, kTagScatterv, a.recvbuf, a.count * es) : Status::Ok();
  std::vector<Pending> sends(static_cast<size_t>(p));
  for (int k = 1; k < p; ++k) {
    const int j = mod(r + k, p);
    if (a.sendcounts[j])
      NX_RETURN_IF_ERROR(ctx.isend(j, kTagScatterv, at(a.sendbuf, a.sdispls[j], es), a.sendcounts[j] * es,
                                   &sends[static_cast<size_t>(j)]));
  }
  // In place (recvbuf == sendbuf or its own block): the block stays where it is.
  if (a.recvbuf != a.sendbuf) copy_elems(a.recvbuf, at(a.sendbuf, a.sdispls[r], es), a.count, es);
  for (int j = 0; j < p; ++j)
    if (j != r && a.sendcounts[j]) NX_RETURN_IF_ERROR(ctx.wait(&sends[static_cast<size_t>(j)]));
  return Status::Ok();
}

// n = bytes scattered.
double scatterv_linear_cost(const CostModel& m, int p, double n) { return gatherv_linear_cost(m, p, n); }

}  // namespace nexar::coll
