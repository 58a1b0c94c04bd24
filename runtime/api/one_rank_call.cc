// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A one-rank call cannot wait on a peer, so it has no place in a hang report: it takes no
// collective number and leaves no flight record (docs/observability.md); with NEXAR_TRACE
// set it takes the general path, which records and traces it.
#include "api/one_rank_call.h"

#include "api/api_group.h"
#include "api/api_state.h"
#include "api/call_checks.h"
#include "collectives/select.h"
#include "comm/comm_coll_context.h"

namespace nexar::api {

bool run_one_rank_call(nexar_comm_t comm, const coll::CollArgs& args, nexar_result_t* result) {
  if (!comm || comm->serial.load(std::memory_order_acquire) == 0) return false;
  comm::Comm* c = comm->comm.get();
  if (c->size() != 1 || !c->usable_now() || c->recorder().tracing() || group::active()) return false;
  // Behind a queued collective the call waits its turn on the general path. The checks run
  // under the queue's claim, which gives c's caches one thread at a time.
  return c->collectives().try_run_inline([&] {
    const coll::AlgoDesc* d = coll::one_rank_algo(args.kind, &c->choice_cache());
    if (!d || !plain_checks_pass(*c, args)) return false;
    *result = finish(comm, coll::run_one_rank(*d, args, comm::coll_transport(*c)));
    return true;
  });
}

}  // namespace nexar::api
