// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Reduce-scatter by recursive halving: log2(p) exchanges, each of half the data still
// held; rank r ends with block r. Needs a power-of-two p (rejected otherwise).
#include "collectives/algorithms.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

Status reduce_scatter_halving(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), n = a.count;  // n: elements per block
  if (p == 1) {
    copy_elems(a.recvbuf, a.sendbuf, n, es);
    return Status::Ok();
  }
  const size_t half = n * static_cast<size_t>(p / 2);
  TempBuf work, tmp;
  NX_RETURN_IF_ERROR(work.alloc(half * es, "recursive-halving work buffer"));
  NX_RETURN_IF_ERROR(tmp.alloc(half * es, "recursive-halving receive buffer"));
  // src holds blocks [lo, lo + 2d); block lo sits at src[0].
  const unsigned char* src = static_cast<const unsigned char*>(a.sendbuf);
  int lo = 0;
  for (int d = p / 2; d >= 1; d /= 2) {
    const int partner = r ^ d, mid = lo + d;
    const bool keep_low = (r & d) == 0;
    const int klo = keep_low ? lo : mid, slo = keep_low ? mid : lo;
    const size_t bytes = static_cast<size_t>(d) * n * es;
    NX_RETURN_IF_ERROR(ctx.sendrecv(partner, 111, src + static_cast<size_t>(slo - lo) * n * es, bytes, partner, 111,
                                    tmp.data(), bytes));
    unsigned char* dst = d == 1 ? static_cast<unsigned char*>(a.recvbuf) : work.data();
    reduce_ordered(dst, src + static_cast<size_t>(klo - lo) * n * es, tmp.data(), partner < r,
                   static_cast<size_t>(d) * n, a.dtype, a.op);
    src = dst;
    lo = klo;
  }
  reduce_finalize(a.recvbuf, n, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

double reduce_scatter_halving_cost(const CostModel& m, int p, double n) {
  const double f = static_cast<double>(p - 1) / p;
  return m.xfer(ceil_log2(p), 0) + m.crowded_reduced_bytes(p) * (m.xfer(0, n * f) + m.reduce(n * f));
}

}  // namespace nexar::coll
