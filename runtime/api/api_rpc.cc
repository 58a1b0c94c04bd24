// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Remote procedure calls: nexar_rpc_register, nexar_rpc_reply_set, nexar_rpc_call,
// nexar_rpc_icall (comm/rpc_service.h serves, comm/rpc_call.h calls).
#include "api/api_state.h"
#include "comm/rpc_call.h"
#include "comm/rpc_service.h"

using nexar::Status;
using nexar::api::finish;

// What a handler's reply handle points at: the result of the call being handled.
struct nexar_rpc_reply {
  std::vector<uint8_t>* result;
};

namespace {

Status call_args(nexar_comm_t comm, int target, const void* args, size_t args_bytes, const void* result,
                 size_t capacity) {
  NX_RETURN_IF_ERROR(nexar::api::check_comm(comm));
  Status st = nexar::api::check_peer(*comm->comm, target, false);
  if (!st.ok()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "RPC target: " + st.message());
  if (!args && args_bytes > 0)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("RPC arguments are NULL with %zu bytes", args_bytes));
  if (!result && capacity > 0)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("RPC result buffer is NULL with capacity %zu", capacity));
  return Status::Ok();
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_rpc_register(nexar_comm_t comm, uint32_t fn_id, nexar_rpc_fn fn, void* user) {
  Status st = nexar::api::check_handle(comm);
  if (st.ok() && !fn) st = Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("RPC function %u: handler is NULL", fn_id));
  if (!st.ok()) return finish(comm, st);
  const int rank = comm->comm->rank();
  auto handler = [fn, user, fn_id, rank](int caller, const uint8_t* args, size_t bytes, std::vector<uint8_t>* result) {
    nexar_rpc_reply reply{result};
    const nexar_result_t rc = fn(user, caller, args, bytes, &reply);
    if (rc == NEXAR_SUCCESS) return Status::Ok();
    return Status(rc, nexar::strprintf("RPC function %u on rank %d returned %s", fn_id, rank, nexar_result_string(rc)));
  };
  return finish(comm, comm->comm->rpc().add(fn_id, handler));
}

NEXAR_API nexar_result_t nexar_rpc_reply_set(nexar_rpc_reply_t reply, const void* data, size_t bytes) {
  if (!reply || !reply->result)
    return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_rpc_reply_set: reply is NULL"));
  if (!data && bytes > 0)
    return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT,
                                  nexar::strprintf("nexar_rpc_reply_set: data is NULL with %zu bytes", bytes)));
  const auto* p = static_cast<const uint8_t*>(data);
  reply->result->assign(p, p + bytes);
  return NEXAR_SUCCESS;
}

NEXAR_API nexar_result_t nexar_rpc_call(nexar_comm_t comm, int target, uint32_t fn_id, const void* args,
                                        size_t args_bytes, void* result, size_t capacity, size_t* result_bytes) {
  if (result_bytes) *result_bytes = 0;
  Status st = call_args(comm, target, args, args_bytes, result, capacity);
  if (!st.ok()) return finish(comm, st);
  auto& c = *comm->comm;
  const auto deadline = c.deadline();
  std::unique_ptr<nexar::comm::rpc::Call> call;
  st = nexar::comm::rpc::Call::start(c, target, fn_id, args, args_bytes, result, capacity, &call);
  size_t n = 0;
  if (st.ok()) st = call->finish(deadline, &n);
  if (result_bytes) *result_bytes = n;
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_rpc_icall(nexar_comm_t comm, int target, uint32_t fn_id, const void* args,
                                         size_t args_bytes, void* result, size_t capacity, size_t* result_bytes,
                                         nexar_request_t* req) {
  if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_rpc_icall: request pointer is NULL"));
  *req = nullptr;
  if (result_bytes) *result_bytes = 0;
  Status st = call_args(comm, target, args, args_bytes, result, capacity);
  if (!st.ok()) return finish(comm, st);
  std::unique_ptr<nexar::comm::rpc::Call> call;
  st = nexar::comm::rpc::Call::start(*comm->comm, target, fn_id, args, args_bytes, result, capacity, &call);
  if (!st.ok()) return finish(comm, st);
  auto* r = new nexar_request{comm->comm, nullptr, nullptr, comm, {}};
  r->rpc = std::move(call);
  r->rpc_result_bytes = result_bytes;
  *req = r;
  return NEXAR_SUCCESS;
}

}  // extern "C"
