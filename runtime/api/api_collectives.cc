// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Collectives of the C API. Each is validated locally (a bad root, dtype or op is
// NEXAR_ERR_INVALID_ARGUMENT and leaves the communicator usable), then runs through the
// communicator's collective queue, so blocking and non-blocking ones complete in issue order.
// Inside a group (api_group.h) a collective is only posted and queued when the group ends.
#include "api/api_group.h"
#include "api/api_state.h"
#include "api/call_checks.h"
#include "api/one_rank_call.h"
#include "collectives/collective.h"
#include "comm/coll_trace.h"
#include "comm/comm_coll_context.h"
#include "device/device_collective.h"

using nexar::Status;
using nexar::api::check_comm;
using nexar::api::check_handle;
using nexar::api::finish;
using nexar::coll::CollArgs;
using nexar::coll::CollKind;

namespace nexar::api {

namespace {
// A queued collective: recorded as such until it runs.
// keep: what args point into that the caller need not keep alive (copied count arrays).
comm::CollTaskPtr task_for(const std::shared_ptr<comm::Comm>& c, const CollArgs& args,
                           std::shared_ptr<const void> keep) {
  const uint64_t queued = c->recorder().on() ? c->recorder().note_queued(comm::coll_desc(args, c->size())) : 0;
  return std::make_shared<comm::CollTask>(
      [c, args, queued, keep] { return comm::run_collective(*c, args, queued); });
}
// What a collective posted in a group reads after the call returned: the count arrays
// (vector kinds) and the bucketed allreduce's arrays, copied; args points at the copies.
std::shared_ptr<const void> own_posted_arrays(CollArgs* args, int rank, int size) {
  if (coll::is_vector_kind(args->kind)) return own_count_arrays(args, rank, size);
  if (args->kind != CollKind::ALLREDUCE_BUCKETED) return nullptr;
  struct Copies {
    std::vector<void*> bufs;
    std::vector<size_t> counts;
  };
  auto c = std::make_shared<Copies>();
  c->bufs.assign(args->bufs, args->bufs + args->nbufs);
  c->counts.assign(args->counts, args->counts + args->nbufs);
  args->bufs = c->bufs.data();
  args->counts = c->counts.data();
  return c;
}

// A collective inside a group: checked now, queued when the group ends (its blocking form
// returns at once). st: the checks' result; task: the device task, if any.
nexar_result_t post_grouped(nexar_comm_t comm, CollArgs args, Status st, comm::CollTaskPtr task,
                            nexar_request_t* req) {
  const char* what = coll::coll_kind_name(args.kind);
  if (!st.ok()) return group::post_collective(comm, what, st.with_context(what), nullptr, req);
  if (!task) {
    std::shared_ptr<const void> keep = own_posted_arrays(&args, comm->comm->rank(), comm->comm->size());
    task = task_for(comm->comm, args, std::move(keep));
  }
  return group::post_collective(comm, what, st, std::move(task), req);
}

// The checks of a call on a usable communicator: its arguments, then where its buffers
// are (task: the device task, for CUDA device buffers).
Status check_local(const std::shared_ptr<comm::Comm>& c, const CollArgs& args, comm::CollTaskPtr* task) {
  if (Status st = coll::validate_collective_args(args, c->rank(), c->size()); !st.ok()) return st;
  return device::device_collective_task(c, args, task);
}

// The plain case of a blocking call on a communicator found usable, outside any group, on
// an idle queue: it claims the queue and checks under the claim (arguments that pass the
// checks every call runs, host buffers), so a loop's same call is checked once and runs
// what it ran before (api/call_checks.h, comm::run_passed_call), on the caller's thread
// (on one rank: run_collective's copy at once), with none of the general path's Status
// moves, device task or group handling. False when the call is not that case, errors
// included, with nothing done.
bool run_plain_idle(nexar_comm_t comm, const CollArgs& args, nexar_result_t* result) {
  comm::Comm* c = comm->comm.get();
  Status st;
  // The caller blocks, so c outlives the call; c is not asked again whether it is usable.
  if (!c->collectives().try_run_inline([&] {
        if (!plain_checks_pass(*c, args)) return false;
        st = remembered_kind(args.kind) ? comm::run_passed_call(*c, args, c->passed_call().run(args.kind))
                                        : comm::run_collective(*c, args, 0, true);
        return true;
      }))
    return false;
  *result = finish(comm, st);
  return true;
}

// The plain case of a blocking call on a communicator check_comm found usable: no group
// open, arguments that pass the checks every call runs, host buffers. On an idle queue
// run_plain_idle runs it; behind others it waits as a task recorded as queued. False when
// the call is not that case, errors included: start_collective then runs it, so each
// error is still reported by the one path that reports it.
bool run_plain_blocking(nexar_comm_t comm, const CollArgs& args, nexar_result_t* result) {
  if (group::active()) return false;
  if (run_plain_idle(comm, args, result)) return true;
  // Behind others (or refused: checked again here, then by start_collective, which reports
  // the error): it waits as a task recorded as queued.
  comm::Comm* c = comm->comm.get();
  if (!coll::validate_collective_args(args, c->rank(), c->size()).ok() || !device::host_only_call(*c, args))
    return false;
  *result = finish(comm, c->collectives().run_blocking_fn([c, &args] { return comm::run_collective(*c, args, 0, true); },
                                                        [&] { return task_for(comm->comm, args, nullptr); }));
  return true;
}

}  // namespace

Status barrier_of(const std::shared_ptr<comm::Comm>& c) {
  CollArgs args;
  args.kind = CollKind::BARRIER;
  args.closing = true;
  comm::Comm* cp = c.get();  // c outlives the blocking call
  return c->collectives().run_blocking_fn([cp, args] { return comm::run_collective(*cp, args); });
}

// Blocking when req is NULL; otherwise queued, and *req completes it.
nexar_result_t start_collective(nexar_comm_t comm, const CollArgs& args_in, nexar_request_t* req, bool nonblocking) {
  CollArgs args = args_in;
  if (nonblocking) {
    if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "request pointer is NULL"));
    *req = nullptr;
  }
  Status st = check_comm(comm);
  if (nexar_result_t r; st.ok() && !nonblocking && run_plain_blocking(comm, args, &r)) return r;
  const bool grouped = group::active();
  if (!st.ok() && check_handle(comm).ok() && !grouped) {
    // A broken communicator: the call still goes through its queue, which records it as
    // failed at once (a hang report then sees the rank reached it).
    comm::Comm* c = comm->comm.get();
    (void)c->collectives().run_blocking_fn([c, args] { return comm::run_collective(*c, args); });
  }
  comm::CollTaskPtr task;
  if (st.ok()) {
    Status local = check_local(comm->comm, args, &task);  // built in place: a call that passes moves no Status
    if (!local.ok()) st = std::move(local);
  }
  if (grouped) return post_grouped(comm, args, st, std::move(task), nonblocking ? req : nullptr);
  if (!st.ok()) return finish(comm, st.with_context(coll::coll_kind_name(args.kind)));
  comm::CollQueue& queue = comm->comm->collectives();
  if (!nonblocking) {
    if (task) return finish(comm, queue.run_blocking(task));
    // The caller blocks until the collective is done, so its communicator outlives it.
    // Behind others, it waits as a task recorded as queued.
    comm::Comm* c = comm->comm.get();
    // Run now on this thread: check_comm above found c usable, so it is not asked again.
    return finish(comm, queue.run_blocking_fn([c, &args] { return comm::run_collective(*c, args, 0, true); },
                                              [&] { return task_for(comm->comm, args, nullptr); }));
  }
  if (!task) {
    std::shared_ptr<const void> keep;
    if (coll::is_vector_kind(args.kind)) keep = own_count_arrays(&args, comm->comm->rank(), comm->comm->size());
    task = task_for(comm->comm, args, std::move(keep));
  }
  queue.submit(task);
  *req = new nexar_request{comm->comm, nullptr, task, comm};
  return NEXAR_SUCCESS;
}

CollArgs coll_args(CollKind kind, const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op,
                   int root) {
  CollArgs a;
  a.kind = kind;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.count = count;
  a.dtype = dtype;
  a.op = op;
  a.root = root;
  return a;
}

}  // namespace nexar::api

namespace {

CollArgs make(CollKind kind, const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
              nexar_op_t op = NEXAR_SUM, int root = 0) {
  return nexar::api::coll_args(kind, sendbuf, recvbuf, count, dtype, op, root);
}

CollArgs bucketed(void* const* bufs, const size_t* counts, size_t nbufs, nexar_dtype_t dtype, nexar_op_t op) {
  CollArgs a = make(CollKind::ALLREDUCE_BUCKETED, nullptr, nullptr, 0, dtype, op);
  a.bufs = bufs;
  a.counts = counts;
  a.nbufs = nbufs;
  return a;
}

using nexar::api::start_collective;

// A blocking call of a fixed count on a live communicator usable now, outside any group:
// on one rank its own route (api/one_rank_call.h), else the plain path on an idle queue,
// ahead of the general path's checks and larger frame; every other call, each error among
// them, takes start_collective.
nexar_result_t start_blocking(nexar_comm_t comm, const CollArgs& args) {
  if (comm && comm->serial.load(std::memory_order_acquire) != 0 && !nexar::api::group::active()) {
    const nexar::comm::Comm& c = *comm->comm;
    nexar_result_t r;
    if (c.usable_now() && (c.size() == 1 ? nexar::api::run_one_rank_blocking(comm, args, &r)
                                         : nexar::api::run_plain_idle(comm, args, &r)))
      return r;
  }
  return start_collective(comm, args, nullptr, false);
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_allreduce(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                         nexar_op_t op, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::ALLREDUCE, sendbuf, recvbuf, count, dtype, op));
}
NEXAR_API nexar_result_t nexar_iallreduce(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                          nexar_op_t op, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::ALLREDUCE, sendbuf, recvbuf, count, dtype, op), req, true);
}
NEXAR_API nexar_result_t nexar_broadcast(void* buf, size_t count, nexar_dtype_t dtype, int root, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::BROADCAST, buf, buf, count, dtype, NEXAR_SUM, root));
}
NEXAR_API nexar_result_t nexar_ibroadcast(void* buf, size_t count, nexar_dtype_t dtype, int root, nexar_comm_t comm,
                                          nexar_request_t* req) {
  return start_collective(comm, make(CollKind::BROADCAST, buf, buf, count, dtype, NEXAR_SUM, root), req, true);
}
NEXAR_API nexar_result_t nexar_reduce(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                      nexar_op_t op, int root, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::REDUCE, sendbuf, recvbuf, count, dtype, op, root));
}
NEXAR_API nexar_result_t nexar_ireduce(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                       nexar_op_t op, int root, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::REDUCE, sendbuf, recvbuf, count, dtype, op, root), req, true);
}
NEXAR_API nexar_result_t nexar_allgather(const void* sendbuf, void* recvbuf, size_t sendcount, nexar_dtype_t dtype,
                                         nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::ALLGATHER, sendbuf, recvbuf, sendcount, dtype));
}
NEXAR_API nexar_result_t nexar_iallgather(const void* sendbuf, void* recvbuf, size_t sendcount, nexar_dtype_t dtype,
                                          nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::ALLGATHER, sendbuf, recvbuf, sendcount, dtype), req, true);
}
NEXAR_API nexar_result_t nexar_reduce_scatter(const void* sendbuf, void* recvbuf, size_t recvcount,
                                              nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::REDUCE_SCATTER, sendbuf, recvbuf, recvcount, dtype, op));
}
NEXAR_API nexar_result_t nexar_ireduce_scatter(const void* sendbuf, void* recvbuf, size_t recvcount,
                                               nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm,
                                               nexar_request_t* req) {
  return start_collective(comm, make(CollKind::REDUCE_SCATTER, sendbuf, recvbuf, recvcount, dtype, op), req, true);
}
NEXAR_API nexar_result_t nexar_gather(const void* sendbuf, void* recvbuf, size_t sendcount, nexar_dtype_t dtype,
                                      int root, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::GATHER, sendbuf, recvbuf, sendcount, dtype, NEXAR_SUM, root));
}
NEXAR_API nexar_result_t nexar_igather(const void* sendbuf, void* recvbuf, size_t sendcount, nexar_dtype_t dtype,
                                       int root, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::GATHER, sendbuf, recvbuf, sendcount, dtype, NEXAR_SUM, root), req,
                          true);
}
NEXAR_API nexar_result_t nexar_scatter(const void* sendbuf, void* recvbuf, size_t recvcount, nexar_dtype_t dtype,
                                       int root, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::SCATTER, sendbuf, recvbuf, recvcount, dtype, NEXAR_SUM, root));
}
NEXAR_API nexar_result_t nexar_iscatter(const void* sendbuf, void* recvbuf, size_t recvcount, nexar_dtype_t dtype,
                                        int root, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::SCATTER, sendbuf, recvbuf, recvcount, dtype, NEXAR_SUM, root), req,
                          true);
}
NEXAR_API nexar_result_t nexar_alltoall(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                        nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::ALLTOALL, sendbuf, recvbuf, count, dtype));
}
NEXAR_API nexar_result_t nexar_ialltoall(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                         nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::ALLTOALL, sendbuf, recvbuf, count, dtype), req, true);
}
NEXAR_API nexar_result_t nexar_scan(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                    nexar_op_t op, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::SCAN, sendbuf, recvbuf, count, dtype, op));
}
NEXAR_API nexar_result_t nexar_iscan(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                     nexar_op_t op, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::SCAN, sendbuf, recvbuf, count, dtype, op), req, true);
}
NEXAR_API nexar_result_t nexar_exscan(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                      nexar_op_t op, nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::EXSCAN, sendbuf, recvbuf, count, dtype, op));
}
NEXAR_API nexar_result_t nexar_iexscan(const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                                       nexar_op_t op, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::EXSCAN, sendbuf, recvbuf, count, dtype, op), req, true);
}
NEXAR_API nexar_result_t nexar_barrier(nexar_comm_t comm) {
  return start_blocking(comm, make(CollKind::BARRIER, nullptr, nullptr, 0, NEXAR_UINT8));
}
NEXAR_API nexar_result_t nexar_ibarrier(nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, make(CollKind::BARRIER, nullptr, nullptr, 0, NEXAR_UINT8), req, true);
}
NEXAR_API nexar_result_t nexar_allreduce_bucketed(void* const* bufs, const size_t* counts, size_t nbufs,
                                                  nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm) {
  return start_collective(comm, bucketed(bufs, counts, nbufs, dtype, op), nullptr, false);
}
NEXAR_API nexar_result_t nexar_iallreduce_bucketed(void* const* bufs, const size_t* counts, size_t nbufs,
                                                   nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm,
                                                   nexar_request_t* req) {
  return start_collective(comm, bucketed(bufs, counts, nbufs, dtype, op), req, true);
}

}  // extern "C"
