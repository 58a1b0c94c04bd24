// Point to point and requests: send, recv, isend, irecv, wait, test, waitall.
#include <algorithm>
#include <chrono>

#include "api/api_state.h"
#include "device/device_p2p.h"

using nexar::Status;
using nexar::api::check_buffer;
using nexar::api::check_comm;
using nexar::api::check_peer;
using nexar::api::finish;

namespace {

// Records a send or receive in c's flight recorder (packed: trace/call_kind.h).
nexar::trace::P2pMark record_p2p(nexar::comm::Comm& c, nexar::trace::CallKind kind, size_t count, nexar_dtype_t dtype,
                                 int peer, int tag) {
  nexar::trace::CommRecorder& r = c.recorder();
  if (!r.on()) return {};
  nexar::trace::CallDesc d;
  d.word = nexar::trace::pack_call(kind, dtype, -1, peer);
  d.count = count;
  d.tag = tag;
  return r.begin_p2p(d, peer);
}

Status start_send(const void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag, nexar_comm_t comm,
                  nexar::p2p::RequestPtr* out, nexar::trace::P2pMark* mark) {
  NX_RETURN_IF_ERROR(check_comm(comm));
  size_t bytes;
  NX_RETURN_IF_ERROR(check_buffer(buf, count, dtype, "send buffer", &bytes));
  NX_RETURN_IF_ERROR(check_peer(*comm->comm, peer, false));
  if (tag < 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("send tag %d is negative", tag));
  auto& c = *comm->comm;
  NX_RETURN_IF_ERROR(nexar::device::isend(c, buf, bytes, peer, tag, out));  // host or CUDA device buffer
  *mark = record_p2p(c, nexar::trace::CallKind::kSend, count, dtype, peer, tag);
  return Status::Ok();
}

Status start_recv(void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag, nexar_comm_t comm,
                  nexar::p2p::RequestPtr* out, nexar::trace::P2pMark* mark) {
  NX_RETURN_IF_ERROR(check_comm(comm));
  size_t bytes;
  NX_RETURN_IF_ERROR(check_buffer(buf, count, dtype, "receive buffer", &bytes));
  NX_RETURN_IF_ERROR(check_peer(*comm->comm, peer, true));
  if (tag < 0 && tag != NEXAR_ANY_TAG)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("receive tag %d is neither >= 0 nor NEXAR_ANY_TAG", tag));
  auto& c = *comm->comm;
  NX_RETURN_IF_ERROR(nexar::device::irecv(c, buf, bytes, peer, tag, out));  // host or CUDA device buffer
  *mark = record_p2p(c, nexar::trace::CallKind::kRecv, count, dtype, peer, tag);
  return Status::Ok();
}

nexar_result_t make_request(nexar_comm_t comm, nexar::p2p::RequestPtr r, const nexar::trace::P2pMark& mark,
                            nexar_request_t* req) {
  *req = new nexar_request{comm->comm, std::move(r), nullptr, comm, mark};
  return NEXAR_SUCCESS;
}

// Waits for a send or receive (recorded as waiting on its peer, then ended).
Status wait_p2p(nexar::comm::Comm& c, const nexar::p2p::RequestPtr& r, const nexar::trace::P2pMark& mark, int peer) {
  c.recorder().p2p_wait_begin(mark, peer == NEXAR_ANY_SOURCE ? -2 : peer);
  Status st = nexar::device::wait(c, r);  // finishes device staging
  c.recorder().end_p2p(mark, st);
  return st;
}

// Waits for a request without freeing it.
Status wait_request(nexar_request_t req) {
  if (req->p2p) return wait_p2p(*req->comm, req->p2p, req->mark, req->mark.peer);
  // The bound runs from the collective's start, not from this call: it may still be queued
  // behind others.
  const auto bound = std::chrono::duration_cast<nexar::p2p::Clock::duration>(
      std::chrono::duration<double>(std::min(req->comm->timeout(), 1e9)));  // 1e9 s: no overflow
  return req->comm->fail(req->coll->wait_running(bound));
}

nexar_comm_t no_comm() { return nullptr; }

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_send(const void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                    nexar_comm_t comm) {
  nexar::p2p::RequestPtr r;
  nexar::trace::P2pMark mark;
  Status st = start_send(buf, count, dtype, peer, tag, comm, &r, &mark);
  if (st.ok()) st = wait_p2p(*comm->comm, r, mark, peer);
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_recv(void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                    nexar_comm_t comm) {
  nexar::p2p::RequestPtr r;
  nexar::trace::P2pMark mark;
  Status st = start_recv(buf, count, dtype, peer, tag, comm, &r, &mark);
  if (st.ok()) st = wait_p2p(*comm->comm, r, mark, peer);
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_isend(const void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                     nexar_comm_t comm, nexar_request_t* req) {
  if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "request pointer is NULL"));
  *req = nullptr;
  nexar::p2p::RequestPtr r;
  nexar::trace::P2pMark mark;
  Status st = start_send(buf, count, dtype, peer, tag, comm, &r, &mark);
  if (!st.ok()) return finish(comm, st);
  return make_request(comm, std::move(r), mark, req);
}

NEXAR_API nexar_result_t nexar_irecv(void* buf, size_t count, nexar_dtype_t dtype, int peer, int tag,
                                     nexar_comm_t comm, nexar_request_t* req) {
  if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "request pointer is NULL"));
  *req = nullptr;
  nexar::p2p::RequestPtr r;
  nexar::trace::P2pMark mark;
  Status st = start_recv(buf, count, dtype, peer, tag, comm, &r, &mark);
  if (!st.ok()) return finish(comm, st);
  return make_request(comm, std::move(r), mark, req);
}

NEXAR_API nexar_result_t nexar_wait(nexar_request_t req) {
  if (!req) return finish(no_comm(), Status(NEXAR_ERR_INVALID_ARGUMENT, "request is NULL"));
  Status st = wait_request(req);
  nexar_comm_t handle = req->handle;
  delete req;
  finish(handle, st);  // the detail is found under the request's communicator and under NULL
  return finish(no_comm(), st);
}

NEXAR_API nexar_result_t nexar_test(nexar_request_t req, int* done) {
  if (!req || !done) return finish(no_comm(), Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_test: NULL argument"));
  const bool complete = req->p2p ? req->p2p->is_done() : req->coll->is_done();
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
