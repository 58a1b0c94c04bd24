// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
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
NX_DECLARE_ALGO(barrier_recursive_doubling)
NX_DECLARE_ALGO(allreduce_bucketed_staged)
NX_DECLARE_ALGO(allreduce_shm_flat)
NX_DECLARE_ALGO(reduce_shm_flat)
NX_DECLARE_ALGO(reduce_shm_stage)
NX_DECLARE_ALGO(allreduce_shm_direct)
NX_DECLARE_ALGO(allreduce_shm_stage)
NX_DECLARE_ALGO(broadcast_shm_flat)
NX_DECLARE_ALGO(barrier_shm_flat)
NX_DECLARE_ALGO(allgather_shm_flat)
NX_DECLARE_ALGO(gather_shm_flat)
NX_DECLARE_ALGO(scatter_shm_flat)
NX_DECLARE_ALGO(alltoall_shm_flat)
NX_DECLARE_ALGO(reduce_scatter_shm_flat)
NX_DECLARE_ALGO(broadcast_shm_direct)
NX_DECLARE_ALGO(broadcast_shm_split)
NX_DECLARE_ALGO(allgather_shm_direct)
NX_DECLARE_ALGO(alltoall_shm_direct)
NX_DECLARE_ALGO(gather_shm_direct)
NX_DECLARE_ALGO(scatter_shm_direct)
NX_DECLARE_ALGO(reduce_scatter_shm_direct)
NX_DECLARE_ALGO(reduce_shm_direct)
NX_DECLARE_ALGO(broadcast_shm_push)
NX_DECLARE_ALGO(allgather_shm_push)
NX_DECLARE_ALGO(alltoall_shm_push)
NX_DECLARE_ALGO(allgatherv_ring)
NX_DECLARE_ALGO(gatherv_linear)
NX_DECLARE_ALGO(scatterv_linear)
NX_DECLARE_ALGO(alltoallv_pairwise)
NX_DECLARE_ALGO(alltoallv_scattered)
NX_DECLARE_ALGO(alltoallv_bruck)
NX_DECLARE_ALGO(alltoallv_shm_direct)
NX_DECLARE_ALGO(reduce_scatter_v_ring)

#undef NX_DECLARE_ALGO

// The agreement round: a signal among all ranks (signal_rounds.h: dissemination, or
// recursive doubling where the topology links its partners and not dissemination's;
// ceil(log2 p) rounds of one byte, each message carrying the call's descriptor) on a tag
// of its own, the same on every rank whatever its arguments. select_and_run runs it before algorithms with AlgoDesc::hears_all
// false. Its messages cannot wait on one another in a cycle, so ranks that disagree always
// exchange one and that rank reports it to all; a rank completes the round only after
// hearing, directly or through others, from every rank, each agreeing with the sender.
Status agreement_round(CollContext& ctx);
double agreement_round_cost(const CostModel& m, int p);

// Whether alltoallv bruck forwards the data (else the pairwise exchange moves it), given
// the most bytes any rank sends, which its count rounds agree on.
bool alltoallv_bruck_forwards(const CostModel& m, int p, double most_bytes);

// allreduce shm_stage applies up to NEXAR_SHM_STAGE_MAX bytes.
const char* allreduce_shm_stage_why_not(int p, const CollArgs& args);

// For algorithms that need a power-of-two number of ranks.
const char* needs_pow2(int p, const CollArgs& args);
// broadcast, allgather and alltoall shm_push apply while a rank pushes at most
// NEXAR_SHM_PUSH_MAX bytes.
const char* shm_push_why_not(int p, const CollArgs& args);

}  // namespace nexar::coll
