// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce by recursive halving (reduce-scatter) then recursive doubling (allgather),
// Rabenseifner's algorithm, over p2 = the largest power of two <= p blocks; the other
// ranks are folded in first and served last (pow2_fold.h). Each block is finished once,
// by one participant, then copied, so every rank gets the same bits.
#include "collectives/algorithms.h"
#include "collectives/pow2_fold.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {

constexpr int kTagFold = 21, kTagHalve = 22, kTagDouble = 23;

// vec: this participant's vector (the caller's send buffer, or work after folding); the
// first halving step reads it, every later step works in work.
Status halve_then_double(CollContext& ctx, const Fold& f, const CollArgs& a, const void* vec, void* work, void* tmp) {
  const size_t es = dtype_size(a.dtype);
  const Blocks b{a.count, f.p2};
  const int nr = f.newrank;
  int lo = 0, hi = f.p2;  // the blocks this rank is still responsible for
  for (int d = f.p2 / 2; d >= 1; d /= 2) {
    const int partner_nr = nr ^ d, partner = f.real(partner_nr), mid = lo + (hi - lo) / 2;
    const bool keep_low = (nr & d) == 0;
    const int klo = keep_low ? lo : mid, khi = keep_low ? mid : hi;
    const int slo = keep_low ? mid : lo, shi = keep_low ? hi : mid;
    NX_RETURN_IF_ERROR(ctx.sendrecv(partner, kTagHalve, at(vec, b.off(slo), es), b.span(slo, shi) * es, partner,
                                    kTagHalve, tmp, b.span(klo, khi) * es));
    reduce_ordered(at(work, b.off(klo), es), at(vec, b.off(klo), es), tmp, partner_nr < nr, b.span(klo, khi),
                   a.dtype, a.op);
    vec = work;
    lo = klo;
    hi = khi;
  }
  copy_elems(work, vec, a.count, es);  // one participant: no step read it
  reduce_finalize(at(work, b.off(nr), es), b.len(nr), a.dtype, a.op, static_cast<size_t>(ctx.size()));
  for (int d = 1; d < f.p2; d *= 2) {
    const int partner = f.real(nr ^ d);
    const int plo = (nr & d) == 0 ? hi : lo - d, phi = plo + d;
    NX_RETURN_IF_ERROR(ctx.sendrecv(partner, kTagDouble, at(work, b.off(lo), es), b.span(lo, hi) * es, partner,
                                    kTagDouble, at(work, b.off(plo), es), b.span(plo, phi) * es));
    lo = lo < plo ? lo : plo;
    hi = hi > phi ? hi : phi;
  }
  return Status::Ok();
}

}  // namespace

Status allreduce_halving_doubling(CollContext& ctx, const CollArgs& a) {
  const size_t es = dtype_size(a.dtype);
  const Fold f = make_fold(ctx.rank(), ctx.size());
  // tmp holds a folded partner's whole vector, or the first (largest) half.
  const size_t tmp_elems = fold_needs_tmp(f, ctx.rank()) ? a.count : Blocks{a.count, f.p2}.span(0, f.p2 / 2);
  TempBuf tmp;
  NX_RETURN_IF_ERROR(tmp.alloc(tmp_elems * es, "halving-doubling allreduce"));
  const void* vec = nullptr;
  NX_RETURN_IF_ERROR(fold_in(ctx, f, a.sendbuf, a.recvbuf, tmp.data(), a.count, a.dtype, a.op, kTagFold, &vec));
  if (f.newrank >= 0) NX_RETURN_IF_ERROR(halve_then_double(ctx, f, a, vec, a.recvbuf, tmp.data()));
  return fold_out(ctx, f, a.recvbuf, a.count * es, kTagFold);
}

// 2 log2(p2) messages, 2n(p2-1)/p2 bytes, n(p2-1)/p2 reduced; folding adds two whole-vector
// messages and one reduction when p is not a power of two. The doubling half reads what
// other ranks reduced in the call (CostModel::reduced_results_extra).
double allreduce_halving_doubling_cost(const CostModel& m, int p, double n) {
  const int p2 = floor_pow2(p);
  const double f = static_cast<double>(p2 - 1) / p2;
  double t = m.xfer(2.0 * ceil_log2(p2), 2 * n * f) + m.reduce(n * f) + m.reduced_results_extra(p2, n);
  if (p != p2) t += m.xfer(2, 2 * n) + m.reduce(n);
  return t;
}

}  // namespace nexar::coll
