// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Barrier by dissemination: in round k rank r signals r + 2^k and waits for r - 2^k;
// after ceil(log2 p) rounds every rank has heard, directly or not, from every other.
// The same exchange is the agreement round that trees and scans start with (algorithms.h).
#include "collectives/algorithms.h"

namespace nexar::coll {
namespace {

constexpr int kTagBarrier = 161, kTagAgreement = 171;

Status disseminate(CollContext& ctx, int tag) {
  const int p = ctx.size(), r = ctx.rank();
  unsigned char out = 1, in = 0;
  for (int d = 1; d < p; d <<= 1) NX_RETURN_IF_ERROR(ctx.sendrecv(mod(r + d, p), tag, &out, 1, mod(r - d, p), tag, &in, 1));
  return Status::Ok();
}

}  // namespace

Status barrier_dissemination(CollContext& ctx, const CollArgs&) { return disseminate(ctx, kTagBarrier); }

double barrier_dissemination_cost(const CostModel& m, int p, double) { return m.xfer(ceil_log2(p), 0); }

Status agreement_round(CollContext& ctx) {
  Status st = disseminate(ctx, kTagAgreement);
  return st.ok() ? st : st.with_context("agreement round");
}

double agreement_round_cost(const CostModel& m, int p) { return barrier_dissemination_cost(m, p, 0); }

}  // namespace nexar::coll
