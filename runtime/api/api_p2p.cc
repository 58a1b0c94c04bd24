// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Point to point and requests: send, recv, isend, irecv, wait, test, waitall. Inside a
// group (api_group.h) sends and receives are only posted.
#include "api/api_p2p.h"

#include <algorithm>
#include <chrono>

#include "api/api_group.h"
#include "device/device_p2p.h"

using nexar::Status;
using nexar::api::check_buffer;
using nexar::api::finish;

namespace nexar::api {

P2pFacts p2p_facts(trace::CallKind kind, size_t count, nexar_dtype_t dtype, int peer, int tag) {
  return P2pFacts{kind, count, dtype, peer, tag};
}

trace::P2pMark record_p2p(comm::Comm& c, const P2pFacts& f) {
  trace::CommRecorder& r = c.recorder();
  if (!r.on()) return {};
  trace::CallDesc d;
  d.word = trace::pack_call(f.kind, f.dtype, -1, f.peer);
  d.count = f.count;
  d.tag = f.tag;
  return r.begin_p2p(d, f.peer);
}

Status check_send_args(nexar_comm_t comm, int peer, int tag) {
  NX_RETURN_IF_ERROR(check_comm(comm));
  NX_RETURN_IF_ERROR(check_peer(*comm->comm, peer, false));
  if (tag < 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("send tag %d is negative", tag));
  return Status::Ok();
}

Status check_recv_args(nexar_comm_t comm, int peer, int tag) {
  NX_RETURN_IF_ERROR(check_comm(comm));
  NX_RETURN_IF_ERROR(check_peer(*comm->comm, peer, true));
  if (tag < 0 && tag != NEXAR_ANY_TAG)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("receive tag %d is neither >= 0 nor NEXAR_ANY_TAG", tag));
  return Status::Ok();
}

Status start_send(nexar_comm_t comm, const void* buf, size_t bytes, const P2pFacts& f, p2p::RequestPtr* out,
                  trace::P2pMark* mark) {
  NX_RETURN_IF_ERROR(check_send_args(comm, f.peer, f.tag));
  auto& c = *comm->comm;
  NX_RETURN_IF_ERROR(device::isend(c, buf, bytes, f.peer, f.tag, out));  // host or CUDA device buffer
  *mark = record_p2p(c, f);
  return Status::Ok();
}

Status start_recv(nexar_comm_t comm, void* buf, size_t bytes, const P2pFacts& f, p2p::RequestPtr* out,
                  trace::P2pMark* mark) {
  NX_RETURN_IF_ERROR(check_recv_args(comm, f.peer, f.tag));
  auto& c = *comm->comm;
  NX_RETURN_IF_ERROR(device::irecv(c, buf, bytes, f.peer, f.tag, out));  // host or CUDA device buffer
  *mark = record_p2p(c, f);
  return Status::Ok();
}

Status wait_p2p(comm::Comm& c, const p2p::RequestPtr& r, const trace::P2pMark& mark) {
  c.recorder().p2p_wait_begin(mark, mark.peer == NEXAR_ANY_SOURCE ? -2 : mark.peer);
  Status st = device::wait(c, r);  // finishes device staging
  c.recorder().end_p2p(mark, st);
  return st;
}

Status wait_request(nexar_request_t req) {
  if (group::holds(req))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "the request was posted in a group not ended yet (call nexar_group_end first)");
  NX_RETURN_IF_ERROR(group::await_start(req, req->comm->timeout()));  // another thread's group
  if (req->p2p) return wait_p2p(*req->comm, req->p2p, req->mark);
  if (req->rpc) {
    size_t n = 0;
    Status st = req->rpc->finish(req->comm->deadline(), &n);
    if (req->rpc_result_bytes) *req->rpc_result_bytes = n;
    return st;
  }
  if (!req->coll) return req->early;  // a grouped operation that could not start
  return wait_collective(*req->comm, *req->coll);
}

Status wait_collective(comm::Comm& c, comm::CollTask& task) {
  // The bound runs from the collective's start, not from this call: it may still be queued
  // behind others.
  const auto bound = std::chrono::duration_cast<nexar::p2p::Clock::duration>(
      std::chrono::duration<double>(std::min(c.timeout(), 1e9)));  // 1e9 s: no overflow
  return c.fail(task.wait_running(bound));
}

void fill_status(const comm::Comm& c, const p2p::Request* r, nexar_status_t* status) {
  if (!status) return;
  *status = nexar_status_t{-1, -1, 0};
  if (!r || r->kind != p2p::Request::Kind::RECV || r->source < 0) return;
  *status = nexar_status_t{c.comm_rank_of_world(r->source), r->tag, r->bytes};
}

std::string describe_p2p(bool send, int peer, int tag) {
  std::string who = peer == NEXAR_ANY_SOURCE ? "any rank" : strprintf("rank %d", peer);
  std::string t = tag == NEXAR_ANY_TAG ? "any tag" : strprintf("tag %d", tag);
  return strprintf("%s %s (%s)", send ? "send to" : "receive from", who.c_str(), t.c_str());
}

nexar_result_t run_p2p(nexar_comm_t comm, bool send, int peer, int tag, Status early, const StartFn& start,
                       nexar_request_t* req, nexar_status_t* status) {
  if (group::active()) {
    if (early.ok()) early = send ? check_send_args(comm, peer, tag) : check_recv_args(comm, peer, tag);
    return group::post(comm, !send, describe_p2p(send, peer, tag), early, start, req, status);
  }
  if (status) *status = nexar_status_t{-1, -1, 0};
  p2p::RequestPtr r;
  trace::P2pMark mark;
  Status st = early;
  if (st.ok()) st = start(&r, &mark);
  if (!st.ok() || !req) {
    if (st.ok()) st = wait_p2p(*comm->comm, r, mark);
    if (r) fill_status(*comm->comm, r.get(), status);
    return finish(comm, st);
  }
  *req = new nexar_request{comm->comm, std::move(r), nullptr, comm, mark};
  return NEXAR_SUCCESS;
}

}  // namespace nexar::api

namespace {

nexar_comm_t no_comm() { return nullptr; }

// A send or receive of a buffer.
nexar_result_t p2p_call(bool send, const void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                        nexar_comm_t comm, nexar_request_t* req, nexar_status_t* status = nullptr) {
  size_t bytes = 0;
  Status st = check_buffer(buf, count, dtype, send ? "send buffer" : "receive buffer", &bytes);
  const auto f = nexar::api::p2p_facts(send ? nexar::trace::CallKind::kSend : nexar::trace::CallKind::kRecv, count, dtype, peer, tag);
  auto start = [=](nexar::p2p::RequestPtr* r, nexar::trace::P2pMark* mark) {
    return send ? nexar::api::start_send(comm, buf, bytes, f, r, mark)
                : nexar::api::start_recv(comm, const_cast<void*>(buf), bytes, f, r, mark);
  };
  return nexar::api::run_p2p(comm, send, peer, tag, st, start, req, status);
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_send(const void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                    nexar_comm_t comm) {
  return p2p_call(true, buf, count, dtype, peer, tag, comm, nullptr);
}

NEXAR_API nexar_result_t nexar_recv(void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                    nexar_comm_t comm) {
  return p2p_call(false, buf, count, dtype, peer, tag, comm, nullptr);
}

NEXAR_API nexar_result_t nexar_recv_status(void* buf, size_t count, nexar_dtype_t dtype, int source, int tag,
                                           nexar_comm_t comm, nexar_status_t* status) {
  return p2p_call(false, buf, count, dtype, source, tag, comm, nullptr, status);
}

NEXAR_API nexar_result_t nexar_isend(const void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                     nexar_comm_t comm, nexar_request_t* req) {
  if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "request pointer is NULL"));
  *req = nullptr;
  return p2p_call(true, buf, count, dtype, peer, tag, comm, req);
}

NEXAR_API nexar_result_t nexar_irecv(void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                     nexar_comm_t comm, nexar_request_t* req) {
  if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "request pointer is NULL"));
  *req = nullptr;
  return p2p_call(false, buf, count, dtype, peer, tag, comm, req);
}

NEXAR_API nexar_result_t nexar_wait(nexar_request_t req) {
  return nexar_wait_status(req, nullptr);
}

NEXAR_API nexar_result_t nexar_wait_status(nexar_request_t req, nexar_status_t* status) {
  if (!req) return finish(no_comm(), Status(NEXAR_ERR_INVALID_ARGUMENT, "request is NULL"));
  Status st = nexar::api::wait_request(req);
  nexar::api::fill_status(*req->comm, req->p2p.get(), status);
  nexar_comm_t handle = req->handle;
  // A request of an unended group stays the group's (it frees it); others are freed here.
  if (nexar::api::group::detach(req)) delete req;
  finish(handle, st);  // the detail is found under the request's communicator and under NULL
  return finish(no_comm(), st);
}

NEXAR_API nexar_result_t nexar_test(nexar_request_t req, int* done) {
  if (!req || !done) return finish(no_comm(), Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_test: NULL argument"));
  // This thread's open group: "complete" so nexar_wait refuses it; another thread's: not yet.
  const bool complete = req->grouped.load(std::memory_order_acquire)
                            ? nexar::api::group::holds(req)
                            : req->p2p ? req->p2p->is_done()
                              : req->rpc ? req->rpc->is_done()
                                         : !req->coll || req->coll->is_done();
  if (!complete) {
    *done = 0;
    return NEXAR_IN_PROGRESS;
  }
  *done = 1;
  return nexar_wait(req);
}

NEXAR_API nexar_result_t nexar_waitall(size_t n, nexar_request_t* reqs) {
  if (n > 0 && !reqs) return finish(no_comm(), Status(NEXAR_ERR_INVALID_ARGUMENT, "request array is NULL"));
  nexar_result_t first = NEXAR_SUCCESS;
  for (size_t i = 0; i < n; ++i) {
    if (!reqs[i]) continue;
    nexar_result_t r = nexar_wait(reqs[i]);
    reqs[i] = nullptr;
    if (first == NEXAR_SUCCESS) first = r;
  }
  return first;
}

}  // extern "C"
