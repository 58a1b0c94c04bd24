// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The pair check of the collectives with a count per rank: counts are not the same on
// every rank, so the descriptor every message carries cannot hold them. Before any data
// moves, every pair of ranks that exchanges data in the collective swaps, in one small
// message each way, what each sends to the other and what each expects from the other
// (all posted at once: one message latency). Both ranks of a pair that disagree then
// fail with NEXAR_ERR_MISMATCH and the same text, naming both ranks and both counts:
//   "alltoallv: rank 1 sends 5 elements to rank 2 where rank 2 expects 4 from rank 1"
// so no data phase can hang or truncate. The algorithms run after it and rely on it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/coll_context.h"
#include "collectives/collective.h"
#include "collectives/cost_model.h"

namespace nexar::coll {

// Elements this rank sends to / expects from peer j (comm ranks) in the collective a;
// 0 where the two do not exchange data. The same on both sides when ranks agree.
size_t vcount_send_to(const CollArgs& a, int rank, int j);
size_t vcount_recv_from(const CollArgs& a, int rank, int j);

// Judges the pair (r, j) from both sides' counts; the same text on both ranks of the pair.
Status check_pair_counts(const CollArgs& a, int j, uint64_t j_sends, uint64_t r_expects, int r, uint64_t r_sends,
                         uint64_t j_expects);

// Its modelled cost: p - 1 small messages each way, all posted at once (the first costs a,
// each further one a/4, as alltoallv scattered's).
double vcount_check_cost(const CostModel& m, int p);

// Runs the exchange (p > 1, a with is_vector_kind). NEXAR_ERR_MISMATCH as above.
Status check_vector_counts(CollContext& ctx, const CollArgs& a);

}  // namespace nexar::coll
