// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Gatherv, linear: the root posts a receive from every member straight into its block at
// rdispls[j] and each member sends once. With blocks of any length a tree would forward
// them through intermediate ranks; the root's link carries every byte either way.
#include <vector>

#include "collectives/algorithms.h"
#include "core/dtype.h"

namespace nexar::coll {

constexpr int kTagGatherv = 141;

Status gatherv_linear(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  if (r != a.root) return a.count ? ctx.send(a.root, kTagGatherv, a.sendbuf, a.count * es) : Status::Ok();
  std::vector<Pending> recvs(static_cast<size_t>(p));
  for (int k = 1; k < p; ++k) {
    const int j = mod(r + k, p);
    if (a.recvcounts[j])
      NX_RETURN_IF_ERROR(ctx.irecv(j, kTagGatherv, at(a.recvbuf, a.rdispls[j], es), a.recvcounts[j] * es,
                                   &recvs[static_cast<size_t>(j)]));
  }
  if (a.sendbuf != a.recvbuf) copy_elems(at(a.recvbuf, a.rdispls[r], es), a.sendbuf, a.recvcounts[r], es);
  for (int j = 0; j < p; ++j)
    if (j != r && a.recvcounts[j]) NX_RETURN_IF_ERROR(ctx.wait(&recvs[static_cast<size_t>(j)]));
  return Status::Ok();
}

// n = bytes gathered: p - 1 messages overlap at the root, whose link carries n (p-1)/p.
double gatherv_linear_cost(const CostModel& m, int p, double n) { return m.xfer(1 + (p - 2) / 4.0, n * (p - 1) / p); }

}  // namespace nexar::coll
