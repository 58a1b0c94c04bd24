// Every algorithm's entry points: run (written only against CollContext), cost
// (microseconds predicted by the CostModel for p ranks and n bytes) and, for those that
// do not apply everywhere, why_not (nullptr when they apply). One file per algorithm.
#pragma once

#include "collectives/coll_context.h"
#include "collectives/coll_util.h"
#include "collectives/collective.h"
#include "collectives/cost_model.h"

namespace nexar::coll {

#define NX_DECLARE_ALGO(fn)                                  \
  Status fn(CollContext& ctx, const CollArgs& args);         \
  double fn##_cost(const CostModel& m, int p, double n);

NX_DECLARE_ALGO(allreduce_ring)
NX_DECLARE_ALGO(allreduce_ring_pipelined)
NX_DECLARE_ALGO(allreduce_halving_doubling)
NX_DECLARE_ALGO(allreduce_recursive_doubling)
NX_DECLARE_ALGO(broadcast_binomial)
NX_DECLARE_ALGO(broadcast_scatter_allgather)
NX_DECLARE_ALGO(reduce_binomial)
NX_DECLARE_ALGO(reduce_scatter_gather)
NX_DECLARE_ALGO(allgather_ring)
NX_DECLARE_ALGO(allgather_recursive_doubling)
NX_DECLARE_ALGO(reduce_scatter_ring)
NX_DECLARE_ALGO(reduce_scatter_halving)
NX_DECLARE_ALGO(alltoall_pairwise)
NX_DECLARE_ALGO(gather_binomial)
NX_DECLARE_ALGO(scatter_binomial)
NX_DECLARE_ALGO(scan_recursive_doubling)
NX_DECLARE_ALGO(exscan_recursive_doubling)
NX_DECLARE_ALGO(barrier_dissemination)
NX_DECLARE_ALGO(allreduce_bucketed_staged)

#undef NX_DECLARE_ALGO

// For algorithms that need a power-of-two number of ranks.
const char* needs_pow2(int p, const CollArgs& args);

}  // namespace nexar::coll
