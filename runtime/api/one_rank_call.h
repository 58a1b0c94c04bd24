// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The route of a blocking collective on a communicator of one rank (a split into groups of
// one, a dup of MPI_COMM_SELF's shape): the checks the contract requires, then the one
// local copy, with no sequence number, flight record, Status or lambda on the way.
#pragma once

#include "collectives/collective.h"
#include "nexar/nexar.h"

namespace nexar::api {

// Runs the call and returns true (*result: what it returns) when comm is a live, usable
// communicator of one rank, no group is open on this thread, NEXAR_ALGO forces no other
// algorithm of the kind, no trace is written (NEXAR_TRACE), the arguments pass
// validate_collective_args, the buffers are host memory and no collective is queued on
// comm. Otherwise it does nothing and returns false: the general path then runs the call
// and reports each error, so every error still comes from the one path that reports it.
bool run_one_rank_call(nexar_comm_t comm, const coll::CollArgs& args, nexar_result_t* result);

}  // namespace nexar::api
