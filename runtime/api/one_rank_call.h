// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The route of a blocking collective on a communicator of one rank (a split into groups of
// one, a dup of MPI_COMM_SELF's shape): the checks the contract requires, then the one
// local copy, with no sequence number, flight record, Status or lambda on the way.
// Inline: its caller's frame is the only one between the C entry and the checks.
//
// A one-rank call cannot wait on a peer, so it has no place in a hang report: it takes no
// collective number and leaves no flight record (docs/observability.md); with NEXAR_TRACE
// set it takes the general path, which records and traces it.
#pragma once

#include "api/api_state.h"
#include "api/call_checks.h"
#include "api/owned_one_rank.h"
#include "collectives/choice_log.h"
#include "collectives/coll_util.h"
#include "collectives/collective.h"
#include "collectives/select.h"
#include "comm/comm_coll_context.h"
#include "nexar/nexar.h"

namespace nexar::api {

// The call's one local copy, what it returns.
inline nexar_result_t one_rank_now(nexar_comm_t comm, const coll::AlgoDesc& d, const coll::CollArgs& args) {
  return finish(comm, coll::run_one_rank(d, args, comm::coll_transport(*comm->comm)));
}

// On a live communicator of one rank that the caller found usable, with no group open on
// this thread (api_collectives.cc's start_blocking): runs the call and returns true
// (*result: what it returns) when NEXAR_ALGO forces no other algorithm of the kind, no
// trace is written (NEXAR_TRACE), the arguments pass validate_collective_args, the buffers
// are host memory and no collective is queued on comm. Otherwise it does nothing and
// returns false: the general path then runs the call and reports each error, so every
// error still comes from the one path that reports it. A call on the thread that owns c's
// remembered one-rank calls, which it is then (api/owned_one_rank.h), is remembered there.
inline bool run_one_rank_call(nexar_comm_t comm, const coll::CollArgs& args, nexar_result_t* result) {
  comm::Comm* c = comm->comm.get();
  if (c->recorder().tracing()) return false;
  // Behind a queued collective the call waits its turn on the general path. The checks run
  // under the queue's claim, which gives c's caches one thread at a time.
  return c->collectives().try_run_inline([&] {
    const coll::AlgoDesc* d = coll::one_rank_algo(args.kind, &c->choice_cache());
    if (!d || !plain_checks_pass(*c, args)) return false;
    remember_owned(*c, args, d);
    *result = one_rank_now(comm, *d, args);
    return true;
  });
}

// What run_one_rank_blocking does past its copy: the owner's remembered call that needs
// more than the copy (run: its OwnedRun), or the route above (run: nullptr). Out of line,
// so the copy's way saves no registers for it.
[[gnu::noinline]] inline bool run_one_rank_rest(nexar_comm_t comm, const coll::CollArgs& args,
                                                 const comm::OwnedRun* run, nexar_result_t* result) {
  if (!run) return run_one_rank_call(comm, args, result);
  *result = one_rank_now(comm, *run->algo, args);
  return true;
}

// The owner's remembered call (api/owned_one_rank.h), else the route above.
inline bool run_one_rank_blocking(nexar_comm_t comm, const coll::CollArgs& args, nexar_result_t* result) {
  const comm::OwnedRun* run = owned_one_rank_run(*comm->comm, args);
  if (run && run->plain_bytes != coll::kNotPlain && coll::choice_logged(args.kind, run->algo)) [[likely]] {
    coll::copy_bytes(args.recvbuf, args.sendbuf, run->plain_bytes);  // all one_rank_copy would do
    *result = NEXAR_SUCCESS;
    return true;
  }
  return run_one_rank_rest(comm, args, run, result);
}

}  // namespace nexar::api
