// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Alltoallv by pairwise exchange: in round k rank r trades blocks with (k - r) mod p, as
// alltoall_pairwise does, with each direction's own length; a zero count sends nothing.
// One pair at a time keeps a hot receiver from being flooded by every sender at once.
#include "collectives/algorithms.h"
#include "collectives/alltoallv_layout.h"

namespace nexar::coll {

Status alltoallv_pairwise(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  AlltoallvLayout l(p);
  NX_RETURN_IF_ERROR(l.prepare(a, r));
  for (int k = 0; k < p; ++k) {
    const int q = mod(k - r, p);
    if (q == r) continue;
    Pending s, rv;
    const size_t sb = l.send_bytes(a, q), rb = l.recv_bytes(a, q);
    if (rb) NX_RETURN_IF_ERROR(ctx.irecv(q, kTagAlltoallv, l.recv_block(a, q), rb, &rv));
    if (sb) NX_RETURN_IF_ERROR(ctx.isend(q, kTagAlltoallv, l.send_block(a, q), sb, &s));
    if (sb) NX_RETURN_IF_ERROR(ctx.wait(&s));
    if (rb) NX_RETURN_IF_ERROR(ctx.wait(&rv));
  }
  return Status::Ok();
}

// n = bytes this rank sends in all.
double alltoallv_pairwise_cost(const CostModel& m, int p, double n) { return m.xfer(p - 1, n * (p - 1) / p); }

}  // namespace nexar::coll
