// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Barrier by dissemination: in round k rank r signals r + 2^k and waits for r - 2^k;
// after ceil(log2 p) rounds every rank has heard, directly or not, from every other.
#include "collectives/algorithms.h"
#include "collectives/signal_rounds.h"

namespace nexar::coll {
namespace {
constexpr int kTagBarrier = 161;
}  // namespace

Status signal_dissemination(CollContext& ctx, int tag) {
  const int p = ctx.size(), r = ctx.rank();
  unsigned char out = 1, in = 0;
  for (int d = 1; d < p; d <<= 1) NX_RETURN_IF_ERROR(ctx.sendrecv(mod(r + d, p), tag, &out, 1, mod(r - d, p), tag, &in, 1));
  return Status::Ok();
}

Status barrier_dissemination(CollContext& ctx, const CollArgs&) { return signal_dissemination(ctx, kTagBarrier); }

double barrier_dissemination_cost(const CostModel& m, int p, double) { return m.xfer(ceil_log2(p), 0); }

}  // namespace nexar::coll
