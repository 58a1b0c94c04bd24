// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Barrier by recursive doubling: in round k ranks r and r ^ 2^k signal each other (over
// the largest power of two p2; the others hand their signal to a partner first and get
// one back at the end). As many rounds as dissemination for a power of two; it wins where
// partners r ^ 2^k are linked and r + 2^k are not (NEXAR_TOPOLOGY=hypercube).
#include "collectives/algorithms.h"
#include "collectives/pow2_fold.h"
#include "collectives/signal_rounds.h"

namespace nexar::coll {
namespace {
constexpr int kTagBarrier = 162;
}  // namespace

Status signal_recursive_doubling(CollContext& ctx, int tag) {
  const int r = ctx.rank();
  const Fold f = make_fold(r, ctx.size());
  unsigned char out = 1, in = 0;
  const bool folded = r < 2 * f.rem;
  if (folded && f.newrank < 0) {  // sits out: signals its partner, waits for the end
    NX_RETURN_IF_ERROR(ctx.send(r + 1, tag, &out, 1));
    return ctx.recv(r + 1, tag, &in, 1);
  }
  if (folded) NX_RETURN_IF_ERROR(ctx.recv(r - 1, tag, &in, 1));
  for (int d = 1; d < f.p2; d <<= 1) {
    const int partner = f.real(f.newrank ^ d);
    NX_RETURN_IF_ERROR(ctx.sendrecv(partner, tag, &out, 1, partner, tag, &in, 1));
  }
  if (folded) NX_RETURN_IF_ERROR(ctx.send(r - 1, tag, &out, 1));
  return Status::Ok();
}

Status barrier_recursive_doubling(CollContext& ctx, const CollArgs&) { return signal_recursive_doubling(ctx, kTagBarrier); }

double barrier_recursive_doubling_cost(const CostModel& m, int p, double) {
  const int p2 = floor_pow2(p);
  return m.xfer(ceil_log2(p2) + (p != p2 ? 2 : 0), 0);
}

}  // namespace nexar::coll
