// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The checks a blocking call on the caller's thread runs before it runs there (the one-rank
// route, api/one_rank_call.h, and the plain blocking path of api_collectives.cc): its
// arguments pass validate_collective_args and its buffers are host memory.
#pragma once

#include "collectives/collective.h"
#include "comm/comm.h"

namespace nexar::api {

// Whether args pass validate_collective_args(args, c.rank(), c.size()) and
// device::host_only_call. A call of a fixed count is checked once for a loop's same
// arguments (comm/passed_call.h), but for the brk heap's end, read on every call (the heap
// may shrink), and, for buffers outside the heap, whether a CUDA driver is loaded
// (device::host_only_span of the remembered span). The caller holds c's collective queue
// (CollQueue::try_run_inline), which gives c's remembered call one thread at a time.
bool plain_checks_pass(comm::Comm& c, const coll::CollArgs& args);

// Whether a call of kind that passed plain_checks_pass is remembered (c.passed_call(),
// with what it runs): a fixed count. The kinds whose counts are in arrays are checked on
// every call.
inline bool remembered_kind(coll::CollKind kind) {
  return !coll::counts_in_arrays(kind);
}

}  // namespace nexar::api
