// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A loop's same blocking call on a communicator of one rank, on the thread that owns the
// communicator's remembered one-rank calls (comm/owned_calls.h): it runs with no claim of
// the collective queue and no release after, where the one-rank route (api/one_rank_call.h)
// pays a locked compare-and-swap for each. What the claim gave the route this keeps:
//   - the order after the communicator's earlier calls: only on an idle queue (one acquire
//     load), so every call issued before completed and its writes are seen;
//   - one thread at a time in what is remembered: only the owner reads or writes it; the
//     copy itself touches nothing of the communicator (another thread's call may run
//     meanwhile, as two calls on two threads may run in either order);
//   - the checks: the arguments that passed under the claim are compared again (the
//     remembered call); buffers that were in the brk heap are host memory while the heap
//     still reaches their end (one read of the break), others are tested as on the route;
//     a parameters' generation other than the one the algorithm was looked up under
//     (NEXAR_ALGO changed) sends the call back to the route.
// The C entry checked the rest first: a live handle, a communicator usable now (revoke,
// abort), no group open. A communicator that traces (NEXAR_TRACE) never remembers a call
// here: the route leaves it to the general path.
#pragma once

#include "collectives/one_rank.h"
#include "comm/comm.h"
#include "core/params.h"
#include "device/cuda_detect.h"
#include "device/device_collective.h"

namespace nexar::api {

// What args runs at once when it is the owner's remembered call on c (above); nullptr
// otherwise.
inline const comm::OwnedRun* owned_one_rank_run(comm::Comm& c, const coll::CollArgs& args) {
  comm::OwnedCalls& own = c.owned_calls();
  if (!own.mine() || !c.collectives().idle()) return nullptr;
  comm::PassedCallCache& calls = own.calls();
  if (!calls.same(args)) return nullptr;
  const comm::OwnedRun& run = own.run(args.kind);
  const uintptr_t hi = calls.span_hi(args.kind);
  if (run.generation != params::generation() ||
      !(run.in_heap ? device::brk_heap_reaches(hi) : device::host_only_span(c, args.kind, calls.span_lo(args.kind), hi)))
    return nullptr;
  return &run;
}

// On the one-rank route, under the queue's claim, args passed its checks (c.passed_call()
// holds them and their span) and runs algo, one_rank_algo's answer as of the choice cache's
// generation: the owner of c's remembered calls, or the thread that becomes it now,
// remembers it for owned_one_rank_run.
inline void remember_owned(comm::Comm& c, const coll::CollArgs& args, const coll::AlgoDesc* algo) {
  comm::OwnedCalls& own = c.owned_calls();
  if (!own.mine() && !own.own()) return;
  const comm::PassedCallCache& checked = c.passed_call();
  const uintptr_t lo = checked.span_lo(args.kind), hi = checked.span_hi(args.kind);
  own.calls().remember(args, lo, hi, comm::CallWords{});
  own.run(args.kind) = comm::OwnedRun{algo, c.choice_cache().one_rank_generation, coll::one_rank_plain_bytes(args),
                                      device::host_while_heap_reaches(args.kind, lo, hi)};
}

}  // namespace nexar::api
