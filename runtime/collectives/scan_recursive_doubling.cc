// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Inclusive and exclusive prefix reductions by recursive doubling (any p): in round d
// rank r swaps its running partial (the reduction over its aligned group of d ranks) with
// r ^ d and, if the partner is lower, folds the partner's partial into its result. log2(p)
// rounds of the whole vector. Operands always combine lower ranks first.
// AVG divides the prefix by the number of ranks in it (scan: r + 1; exscan: r); exscan
// gives rank 0 the identity of the op (AVG: 0, as for SUM).
#include "collectives/algorithms.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {

constexpr int kTag = 151;

Status prefix(CollContext& ctx, const CollArgs& a, bool inclusive) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bytes = a.count * es;
  TempBuf partial, tmp;
  NX_RETURN_IF_ERROR(partial.alloc(bytes, "scan partial"));
  NX_RETURN_IF_ERROR(tmp.alloc(bytes, "scan receive buffer"));
  copy_elems(partial.data(), a.sendbuf, a.count, es);  // before recvbuf (maybe sendbuf) changes
  bool have_result = inclusive;  // exscan's result starts empty
  if (inclusive) copy_elems(a.recvbuf, a.sendbuf, a.count, es);
  for (int d = 1; d < p; d <<= 1) {
    const int partner = r ^ d;
    if (partner >= p) continue;
    NX_RETURN_IF_ERROR(ctx.sendrecv(partner, kTag, partial.data(), bytes, partner, kTag, tmp.data(), bytes));
    const bool lower = partner < r;
    if (lower) {
      if (have_result)
        reduce(a.recvbuf, tmp.data(), a.recvbuf, a.count, a.dtype, a.op);
      else
        copy_elems(a.recvbuf, tmp.data(), a.count, es);
      have_result = true;
    }
    reduce_ordered(partial.data(), partial.data(), tmp.data(), lower, a.count, a.dtype, a.op);
  }
  if (!have_result) {
    fill_identity(a.recvbuf, a.count, a.dtype, a.op);
    return Status::Ok();
  }
  reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(inclusive ? r + 1 : r));
  return Status::Ok();
}

double prefix_cost(const CostModel& m, int p, double n) {
  const int k = ceil_log2(p);
  return m.xfer(k, k * n) + m.reduce(2 * k * n);
}

}  // namespace

Status scan_recursive_doubling(CollContext& ctx, const CollArgs& a) { return prefix(ctx, a, true); }
Status exscan_recursive_doubling(CollContext& ctx, const CollArgs& a) { return prefix(ctx, a, false); }
double scan_recursive_doubling_cost(const CostModel& m, int p, double n) { return prefix_cost(m, p, n); }
double exscan_recursive_doubling_cost(const CostModel& m, int p, double n) { return prefix_cost(m, p, n); }

}  // namespace nexar::coll
