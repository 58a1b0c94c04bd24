// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The collectives of a communicator of one rank (one_rank.cc): entry points for the
// algorithm table, as algorithms.h declares the others'.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/coll_context.h"
#include "collectives/collective.h"
#include "collectives/cost_model.h"

namespace nexar::coll {

Status one_rank(CollContext& ctx, const CollArgs& args);
// The same without a context: what a communicator of one rank runs at once when NEXAR_ALGO
// forces no other algorithm (comm::run_collective, select.h's one_rank_algo).
Status one_rank_copy(const CollArgs& args);
// What one_rank_copy does when it only copies bytes from sendbuf to recvbuf (copy_bytes;
// 0: nothing to copy, as in place or for a barrier or broadcast): how many; kNotPlain
// when it does more (an exscan's identity, AVG's division).
inline constexpr size_t kNotPlain = SIZE_MAX;
size_t one_rank_plain_bytes(const CollArgs& args);
double one_rank_cost(const CostModel& m, int p, double n);
// nullptr at p == 1, else why not.
const char* one_rank_why_not(int p, const CollArgs& args);

}  // namespace nexar::coll
