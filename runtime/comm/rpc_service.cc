// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/rpc_service.h"

#include <algorithm>
#include <cstring>
#include <exception>

#include "comm/comm.h"
#include "comm/rpc_wire.h"
#include "core/log.h"
#include "core/thread_name.h"
#include "transport/shm/shm_hub.h"

namespace nexar::comm::rpc {

Service::Service(Comm& c) : comm_(c) { comm_.engine().set_arrival_listener(comm_.rpc_context(), this); }

Service::~Service() {
  comm_.engine().set_arrival_listener(comm_.rpc_context(), nullptr);  // no arrival starts a thread now
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  reap_replies(true);
}

Status Service::add(uint32_t fn_id, Handler h) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!handlers_.emplace(fn_id, std::move(h)).second)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("RPC function %u is already registered on this communicator", fn_id));
  return Status::Ok();
}

int Service::next_reply_tag() {
  return static_cast<int>(calls_.fetch_add(1, std::memory_order_relaxed) % static_cast<uint32_t>(kMaxReplyTag)) + 1;
}

void Service::on_arrival() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  arrived_ = true;
  if (!thread_.joinable()) {
    thread_ = std::thread([this] { loop(); });
    return;
  }
  cv_.notify_one();
}

void Service::loop() {
  name_this_thread("nexar-rpc");
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return arrived_ || stop_; });
      if (stop_) return;
      arrived_ = false;
    }
    // Serve what waits; an arrival meanwhile sets arrived_ again, so none is missed.
    while (serve_one()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    reap_replies(false);
  }
}

bool Service::serve_one() {
  p2p::Engine& e = comm_.engine();
  const uint32_t ctx = comm_.rpc_context();
  bool found = false;
  p2p::Engine::Probed p;
  // Fails only once the communicator is aborted: nothing is served after that.
  if (!e.iprobe(ctx, NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, &found, &p).ok() || !found) return false;
  std::vector<uint8_t> msg(static_cast<size_t>(p.bytes));
  p2p::RequestPtr r;
  if (!e.irecv(ctx, p.src, p.tag, msg.data(), msg.size(), nullptr, &r).ok()) return false;
  Status st = r->wait_until(comm_.deadline());
  if (st.code() == NEXAR_ERR_TIMEOUT && !r->is_done()) e.cancel(r, st);
  if (!st.ok()) {
    NX_WARN(P2P, "RPC message from rank %d (tag %d) not received: %s", comm_.comm_rank_of_world(p.src), p.tag,
            st.to_string().c_str());
    return true;
  }
  // Another tag is the reply of a call its caller gave up (it timed out): nobody wants it.
  if (p.tag == kRequestTag) handle_request(p.src, msg);
  return true;
}

void Service::handle_request(int src_world, const std::vector<uint8_t>& msg) {
  const int caller = comm_.comm_rank_of_world(src_world);
  RequestHead h;
  if (msg.size() < sizeof(h)) {
    NX_WARN(P2P, "malformed RPC request (%zu bytes) from rank %d dropped", msg.size(), caller);
    return;
  }
  std::memcpy(&h, msg.data(), sizeof(h));
  if (h.magic != kRequestMagic || h.reply_tag < 1 || h.reply_tag > kMaxReplyTag) {
    NX_WARN(P2P, "malformed RPC request from rank %d dropped", caller);
    return;
  }
  Handler fn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = handlers_.find(h.fn_id);
    if (it != handlers_.end()) fn = it->second;
  }
  std::vector<uint8_t> result;
  Status st;
  if (!fn) {
    st = Status(NEXAR_ERR_INVALID_ARGUMENT,
                strprintf("no RPC function %u is registered on rank %d of the communicator", h.fn_id, comm_.rank()));
  } else {
    try {
      st = fn(caller, msg.data() + sizeof(h), msg.size() - sizeof(h), &result);
    } catch (const std::exception& ex) {
      st = Status(NEXAR_ERR_INTERNAL, strprintf("RPC function %u on rank %d threw: %s", h.fn_id, comm_.rank(), ex.what()));
    }
  }
  if (st.ok() && result.size() > h.capacity)
    st = Status(NEXAR_ERR_INVALID_ARGUMENT,
                strprintf("the result of RPC function %u on rank %d is %zu bytes, more than the caller's capacity of %llu",
                          h.fn_id, comm_.rank(), result.size(), static_cast<unsigned long long>(h.capacity)));
  const ReplyHead head = make_reply_head(st.code(), result.size(), st.ok() ? std::string() : st.message());
  std::vector<uint8_t> bytes(sizeof(head) + (st.ok() ? result.size() : 0));
  std::memcpy(bytes.data(), &head, sizeof(head));
  if (st.ok() && !result.empty()) std::memcpy(bytes.data() + sizeof(head), result.data(), result.size());
  send_reply(src_world, h.reply_tag, std::move(bytes));
}

void Service::send_reply(int dst_world, int tag, std::vector<uint8_t> bytes) {
  reap_replies(false);
  Outgoing o{nullptr, std::move(bytes)};
  Status st = comm_.engine().isend(comm_.rpc_context(), dst_world, tag, o.bytes.data(), o.bytes.size(), 0, &o.req);
  if (!st.ok()) {
    NX_WARN(P2P, "RPC reply to rank %d not sent: %s", comm_.comm_rank_of_world(dst_world), st.to_string().c_str());
    return;
  }
  if (comm_.world()->shm) comm_.world()->shm->wake_background(dst_world);  // a caller outside nexar gets it at once
  outgoing_.push_back(std::move(o));
}

void Service::reap_replies(bool wait_all) {
  const auto deadline = comm_.deadline();
  for (Outgoing& o : outgoing_) {
    if (!wait_all || o.req->is_done()) continue;
    Status st = o.req->wait_until(deadline);
    if (st.code() == NEXAR_ERR_TIMEOUT && !o.req->is_done()) comm_.engine().cancel(o.req, st);
  }
  outgoing_.erase(std::remove_if(outgoing_.begin(), outgoing_.end(), [](const Outgoing& o) { return o.req->done(); }),
                  outgoing_.end());
}

}  // namespace nexar::comm::rpc
