// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce by recursive doubling, for tiny messages: log2(p2) exchanges of the whole
// vector (p2 = largest power of two <= p; others folded in, pow2_fold.h). Both partners
// combine the lower group's value first, so all ranks compute the same bits.
#include "collectives/algorithms.h"
#include "collectives/pow2_fold.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {
constexpr int kTagFold = 31, kTagExchange = 32;
}

Status allreduce_recursive_doubling(CollContext& ctx, const CollArgs& a) {
  const size_t es = dtype_size(a.dtype), bytes = a.count * es;
  const Fold f = make_fold(ctx.rank(), ctx.size());
  TempBuf tmp;
  NX_RETURN_IF_ERROR(tmp.alloc(bytes, "recursive-doubling allreduce"));
  // vec: the send buffer until the first exchange reduces into recvbuf (no copy first).
  const void* vec = nullptr;
  NX_RETURN_IF_ERROR(fold_in(ctx, f, a.sendbuf, a.recvbuf, tmp.data(), a.count, a.dtype, a.op, kTagFold, &vec));
  if (f.newrank >= 0) {
    for (int d = 1; d < f.p2; d *= 2) {
      const int partner_nr = f.newrank ^ d;
      const int partner = f.real(partner_nr);
      NX_RETURN_IF_ERROR(ctx.sendrecv(partner, kTagExchange, vec, bytes, partner, kTagExchange, tmp.data(), bytes));
      reduce_ordered(a.recvbuf, vec, tmp.data(), partner_nr < f.newrank, a.count, a.dtype, a.op);
      vec = a.recvbuf;
    }
    copy_elems(a.recvbuf, vec, a.count, es);  // one participant: no exchange read it
    reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(ctx.size()));
  }
  return fold_out(ctx, f, a.recvbuf, bytes, kTagFold);
}

// log2(p2) whole-vector exchanges and reductions, plus folding when p is not a power of 2.
double allreduce_recursive_doubling_cost(const CostModel& m, int p, double n) {
  const int p2 = floor_pow2(p), k = ceil_log2(p2);
  double t = m.xfer(k, k * n) + m.reduce(k * n);
  if (p != p2) t += m.xfer(2, 2 * n) + m.reduce(n);
  return t;
}

}  // namespace nexar::coll
