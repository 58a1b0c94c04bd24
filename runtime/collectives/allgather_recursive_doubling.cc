// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allgather by recursive doubling: log2(p) exchanges, each of everything gathered so far.
// Needs a power-of-two p (rejected otherwise; the selector then uses the ring).
#include "collectives/algorithms.h"
#include "core/dtype.h"

namespace nexar::coll {

Status allgather_recursive_doubling(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;  // bytes per block
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  const void* own = a.sendbuf == a.recvbuf ? out + static_cast<size_t>(r) * bb : a.sendbuf;
  copy_elems(out + static_cast<size_t>(r) * bb, own, a.count, es);
  for (int d = 1; d < p; d *= 2) {
    const int partner = r ^ d;
    const size_t mine = static_cast<size_t>(r & ~(d - 1)), theirs = static_cast<size_t>(partner & ~(d - 1));
    NX_RETURN_IF_ERROR(ctx.sendrecv(partner, 91, out + mine * bb, static_cast<size_t>(d) * bb, partner, 91,
                                    out + theirs * bb, static_cast<size_t>(d) * bb));
  }
  return Status::Ok();
}

double allgather_recursive_doubling_cost(const CostModel& m, int p, double n) {
  return m.xfer(ceil_log2(p), n * (p - 1) / p);
}

const char* needs_pow2(int p, const CollArgs&) {
  return is_pow2(p) ? nullptr : "needs a power-of-two number of ranks";
}

}  // namespace nexar::coll
