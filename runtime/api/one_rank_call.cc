// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A one-rank call cannot wait on a peer, so it has no place in a hang report: it takes no
// collective number and leaves no flight record (docs/observability.md); with NEXAR_TRACE
// set it takes the general path, which records and traces it.
#include "api/one_rank_call.h"

#include "api/api_group.h"
#include "api/api_state.h"
#include "collectives/select.h"
#include "comm/comm_coll_context.h"
#include "device/device_collective.h"
#include "device/staged_collective.h"

namespace nexar::api {

namespace {
// Whether the call passes validate_collective_args(args, 0, 1) and its buffers are host
// memory: checked once for a loop's same arguments, but for the brk heap's end, read on
// every call (the heap may shrink).
bool checks_pass(comm::Comm& c, const coll::CollArgs& args) {
  comm::PassedCallCache& last = c.passed_call();
  if (!last.same(args)) {
    if (!coll::validate_collective_args(args, 0, 1).ok()) return false;
    uintptr_t lo, hi;
    device::buffer_span(args, 0, 1, &lo, &hi);
    last.remember(args, lo, hi);
  }
  // A barrier's question is whether a CUDA stream is set, not where its buffers are.
  if (args.kind != coll::CollKind::BARRIER && device::span_in_brk_heap(last.span_lo(args.kind), last.span_hi(args.kind)))
    return true;
  return device::host_only_call(c, args);
}
}  // namespace

bool run_one_rank_call(nexar_comm_t comm, const coll::CollArgs& args, nexar_result_t* result) {
  if (!comm || comm->serial.load(std::memory_order_acquire) == 0) return false;
  comm::Comm* c = comm->comm.get();
  if (c->size() != 1 || !c->usable_now() || c->recorder().tracing() || group::active()) return false;
  // Behind a queued collective the call waits its turn on the general path. The checks run
  // under the queue's claim, which gives c's caches one thread at a time.
  return c->collectives().try_run_inline([&] {
    const coll::AlgoDesc* d = coll::one_rank_algo(args.kind, &c->choice_cache());
    if (!d || !checks_pass(*c, args)) return false;
    *result = finish(comm, coll::run_one_rank(*d, args, comm::coll_transport(*c)));
    return true;
  });
}

}  // namespace nexar::api
