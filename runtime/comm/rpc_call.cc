// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/rpc_call.h"

#include <cstring>

#include "comm/comm.h"
#include "comm/rpc_service.h"
#include "core/remote_status.h"
#include "transport/shm/shm_hub.h"

namespace nexar::comm::rpc {

Status Call::start(Comm& c, int target, uint32_t fn_id, const void* args, size_t args_bytes, void* result,
                   size_t capacity, std::unique_ptr<Call>* out) {
  std::unique_ptr<Call> call(new Call(c, target, fn_id));
  const int tag = c.rpc().next_reply_tag();
  const int target_world = c.world_rank_of(target);
  std::vector<iovec> regions{{&call->head_, sizeof(call->head_)}};
  if (capacity > 0) regions.push_back({result, capacity});
  NX_RETURN_IF_ERROR(c.engine().irecvv(c.rpc_context(), target_world, tag, std::move(regions), &call->recv_));
  const RequestHead h{kRequestMagic, fn_id, tag, 0, capacity};
  call->request_.resize(sizeof(h) + args_bytes);
  std::memcpy(call->request_.data(), &h, sizeof(h));
  if (args_bytes > 0) std::memcpy(call->request_.data() + sizeof(h), args, args_bytes);
  Status st = c.engine().isend(c.rpc_context(), target_world, kRequestTag, call->request_.data(), call->request_.size(),
                               0, &call->send_);
  if (!st.ok()) {
    call->give_up(st);
    return st;
  }
  if (c.world()->shm) c.world()->shm->wake_background(target_world);  // a target outside nexar serves it at once
  *out = std::move(call);
  return Status::Ok();
}

Call::~Call() {
  if (!finished_) give_up(Status(NEXAR_ERR_ABORTED, "RPC call abandoned"));
}

void Call::give_up(const Status& why) {
  finished_ = true;
  for (const p2p::RequestPtr& r : {send_, recv_})
    if (r && !r->done()) comm_.engine().cancel(r, why);
}

bool Call::is_done() { return recv_->is_done() && (!send_ || send_->is_done()); }

Status Call::finish(p2p::Clock::time_point deadline, size_t* result_bytes) {
  *result_bytes = 0;
  Status st = recv_->wait_until(deadline);
  if (st.ok()) st = send_->wait_until(deadline);  // the target has it: its completion is near
  if (st.code() == NEXAR_ERR_TIMEOUT)
    st = Status(NEXAR_ERR_TIMEOUT, strprintf("RPC function %u on rank %d: no reply within %.3g s", fn_id_, target_,
                                             comm_.timeout()));
  if (!st.ok()) {
    give_up(st);
    return st.code() == NEXAR_ERR_TIMEOUT ? st : st.with_context(strprintf("RPC function %u on rank %d", fn_id_, target_));
  }
  finished_ = true;
  if (recv_->bytes < sizeof(head_) || head_.magic != kReplyMagic)
    return Status(NEXAR_ERR_PROTOCOL, strprintf("malformed reply to RPC function %u from rank %d", fn_id_, target_));
  head_.text[sizeof(head_.text) - 1] = '\0';
  *result_bytes = static_cast<size_t>(head_.result_bytes);
  if (head_.code != NEXAR_SUCCESS) return remote_failure(head_.code, head_.text);
  return Status::Ok();
}

}  // namespace nexar::comm::rpc
