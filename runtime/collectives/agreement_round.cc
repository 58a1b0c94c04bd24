// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The agreement round (algorithms.h): one byte signalled among all ranks, by the pattern
// whose partners the communicator's topology links (the same on every rank).
#include "collectives/algorithms.h"
#include "collectives/signal_rounds.h"

namespace nexar::coll {
namespace {
constexpr int kTagAgreement = 171;
}  // namespace

Status agreement_round(CollContext& ctx) {
  const RouteStretch& routes = ctx.routes();
  Status st = routes[PeerPattern::kXorFold] < routes[PeerPattern::kShift] ? signal_recursive_doubling(ctx, kTagAgreement)
                                                                          : signal_dissemination(ctx, kTagAgreement);
  return st.ok() ? st : st.with_context("agreement round");
}

double agreement_round_cost(const CostModel& m, int p) { return barrier_dissemination_cost(m, p, 0); }

}  // namespace nexar::coll
