// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Alltoall by pairwise exchange: in round k (0..p-1) rank r swaps blocks with
// (k - r) mod p, a perfect matching, so every pair meets exactly once and no rank waits on
// two others. In place, the outgoing block is copied aside first (one block of scratch).
#include "collectives/algorithms.h"
#include "core/dtype.h"

namespace nexar::coll {

Status alltoall_pairwise(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const bool in_place = a.sendbuf == a.recvbuf;
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  const unsigned char* in = static_cast<const unsigned char*>(a.sendbuf);
  TempBuf aside;
  if (in_place && p > 1) NX_RETURN_IF_ERROR(aside.alloc(bb, "in-place alltoall"));
  for (int k = 0; k < p; ++k) {
    const int q = mod(k - r, p);
    const size_t off = static_cast<size_t>(q) * bb;
    if (q == r) {
      copy_elems(out + off, in + off, a.count, es);
      continue;
    }
    const void* src = in + off;
    if (in_place) {
      copy_elems(aside.data(), in + off, a.count, es);
      src = aside.data();
    }
    NX_RETURN_IF_ERROR(ctx.sendrecv(q, 121, src, bb, q, 121, out + off, bb));
  }
  return Status::Ok();
}

// n = size * count bytes sent by each rank.
double alltoall_pairwise_cost(const CostModel& m, int p, double n) {
  return m.xfer(p - 1, n * (p - 1) / p);
}

}  // namespace nexar::coll
