// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/comm.h"

#include <algorithm>
#include <cmath>

#include "comm/ft_service.h"
#include "comm/rpc_service.h"
#include "core/log.h"
#include "core/params.h"

namespace nexar::comm {

bool is_fatal(nexar_result_t code) {
  return code != NEXAR_SUCCESS && code != NEXAR_IN_PROGRESS && code != NEXAR_ERR_INVALID_ARGUMENT &&
         code != NEXAR_ERR_UNSUPPORTED;
}

Comm::Comm(std::shared_ptr<WorldInfo> world, uint32_t ctx_base, std::vector<int> members, int my_rank,
           double timeout_s)
    : world_(std::move(world)),
      ctx_base_(ctx_base),
      members_(std::move(members)),
      rank_(my_rank),
      timeout_s_(timeout_s),
      recorder_(ctx_base, members_, my_rank) {
  world_to_comm_.assign(static_cast<size_t>(world_->engine->size()), -1);
  for (size_t i = 0; i < members_.size(); ++i) world_to_comm_[static_cast<size_t>(members_[i])] = static_cast<int>(i);
  // Local rank: position among the members that share this rank's host identity.
  const auto& hosts = world_->host_ids;
  const std::string& mine = hosts[static_cast<size_t>(members_[static_cast<size_t>(rank_)])];
  local_size_ = 0;
  for (size_t i = 0; i < members_.size(); ++i) {
    if (hosts[static_cast<size_t>(members_[i])] != mine) continue;
    if (static_cast<int>(i) == rank_) local_rank_ = local_size_;
    ++local_size_;
  }
  single_host_ = local_size_ == size() && param::NEXAR_TRANSPORT.get() == "auto";
  if (!world_->host_cores.empty()) {
    cores_ = world_->host_cores[static_cast<size_t>(members_[0])];
    for (int m : members_) cores_ = std::min(cores_, world_->host_cores[static_cast<size_t>(m)]);
  }
  const int n = static_cast<int>(hosts.size());
  if (!single_host_ && !topology::complete(world_->topology, n)) {
    // Members on one host talk over shared memory (NEXAR_TRANSPORT=auto), never relayed.
    const bool shm = param::NEXAR_TRANSPORT.get() == "auto";
    routes_ = coll::route_stretch(size(), [&](int a, int b) {
      const int wa = members_[static_cast<size_t>(a)], wb = members_[static_cast<size_t>(b)];
      if (shm && hosts[static_cast<size_t>(wa)] == hosts[static_cast<size_t>(wb)]) return a == b ? 0 : 1;
      return topology::hops(world_->topology, n, wa, wb);
    });
  }
  // The world communicator's area is 0 on every rank; children agree on theirs (comm_split.cc).
  if (single_host_ && ctx_base_ == 0 && slot_area_eligible(world_->shm, members_)) {
    world_->slot_areas.take(0);
    slots_ = make_slot_area(world_->shm, &world_->slot_areas, 0, members_, rank_, 0);
  }
  world_->engine->register_context(p2p_context(), members_);
  world_->engine->register_context(coll_context(), members_);
  world_->engine->register_context(rpc_context(), members_);
  if (world_->ft) world_->ft->attach(ctx_base_, members_, rank_);
  rpc_ = std::make_unique<rpc::Service>(*this);
}

Comm::~Comm() {
  rpc_.reset();  // its thread may use the contexts until it is joined
  if (world_->ft) world_->ft->detach(ctx_base_);
  world_->engine->unregister_context(p2p_context());
  world_->engine->unregister_context(coll_context());
  world_->engine->unregister_context(rpc_context());
  world_->contexts.release(ctx_base_);
}

p2p::Clock::time_point Comm::deadline() const {
  double s = timeout_s_.load();
  return p2p::Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::llround(s * 1e6)));
}

Status Comm::check_usable_after_abort() const {
  if (!is_broken_.load(std::memory_order_acquire)) {
    const uint64_t epoch = engine().abort_epoch();
    if (epoch == seen_epoch_.load(std::memory_order_relaxed)) return Status::Ok();
    // Some context was aborted since: was it one of ours (a peer's abort or revocation)?
    Status st = engine().context_status(coll_context());
    if (st.ok() || st.code() != NEXAR_ERR_REVOKED) {
      Status p2p = engine().context_status(p2p_context());
      if (!p2p.ok() && (st.ok() || p2p.code() == NEXAR_ERR_REVOKED)) st = p2p;
    }
    if (st.ok()) {
      seen_epoch_.store(epoch, std::memory_order_relaxed);
      return Status::Ok();
    }
    // The call that learns of the break returns its cause (as one that failed inside the
    // collective would); later calls get NEXAR_ERR_ABORTED below.
    const_cast<Comm*>(this)->abort(st);
    return st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (revoked_) return Status(NEXAR_ERR_REVOKED, "communicator was revoked: " + broken_.message());
  if (broken_.ok()) return broken_;
  return Status(NEXAR_ERR_ABORTED, "communicator is unusable after an earlier error: " + broken_.to_string());
}

Status Comm::fail(const Status& s) {
  if (s.ok() || !is_fatal(s.code())) return s;
  abort(s);
  return s;
}

void Comm::abort(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const bool revoking = why.code() == NEXAR_ERR_REVOKED && !revoked_;
    if (!broken_.ok() && !revoking) return;
    if (revoking) revoked_ = true;
    if (broken_.ok() || revoking) broken_ = why;
    is_broken_.store(true, std::memory_order_release);
  }
  // The one place a communicator breaks: printed by default, once (nexar_comm_abort and
  // nexar_comm_revoke are the callers' own doing: INFO).
  if (why.code() == NEXAR_ERR_ABORTED || why.code() == NEXAR_ERR_REVOKED) {
    NX_INFO(P2P, "communicator (context %u) unusable: %s", ctx_base_, why.to_string().c_str());
  } else {
    NX_WARN(P2P, "rank %d: communicator (context %u, %d ranks) unusable: %s", world_rank_of(rank_), ctx_base_, size(),
            why.to_string().c_str());
    if (world_->on_broken) world_->on_broken(why);
  }
  // Peers blocked on this rank learn at once instead of waiting for their own timeout.
  engine().abort_context(p2p_context(), why, true);
  engine().abort_context(coll_context(), why, true);
  engine().abort_context(rpc_context(), why, true);
}

void Comm::revoke() {
  abort(Status(NEXAR_ERR_REVOKED, strprintf("rank %d revoked the communicator", rank_)));
}

bool Comm::revoked() const {
  (void)check_usable();  // picks up a revocation that arrived meanwhile
  std::lock_guard<std::mutex> lock(mu_);
  return revoked_;
}

int Comm::comm_rank_of_world(int world_rank) const {
  if (world_rank < 0 || static_cast<size_t>(world_rank) >= world_to_comm_.size()) return -1;
  return world_to_comm_[static_cast<size_t>(world_rank)];
}

Status Comm::isend(uint32_t ctx, const void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out,
                   uint64_t aux) {
  return fail(engine().isend(ctx, world_rank_of(peer), tag, buf, bytes, aux, out));
}

Status Comm::irecv(uint32_t ctx, void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out,
                   const uint64_t* expect_aux) {
  int src = peer == NEXAR_ANY_SOURCE ? NEXAR_ANY_SOURCE : world_rank_of(peer);
  return fail(engine().irecv(ctx, src, tag, buf, bytes, expect_aux, out));
}

Status Comm::wait(const p2p::RequestPtr& req, p2p::Clock::time_point deadline) {
  Status st = req->wait_until(deadline);
  if (st.code() == NEXAR_ERR_TIMEOUT && !req->is_done()) {
    std::string what;
    if (req->kind == p2p::Request::Kind::SEND)
      what = strprintf("send to rank %d", comm_rank_of_world(req->peer));
    else if (req->src_filter == NEXAR_ANY_SOURCE)
      what = "receive from any rank";
    else
      what = strprintf("receive from rank %d", comm_rank_of_world(req->src_filter));
    st = Status(NEXAR_ERR_TIMEOUT, strprintf("%s (tag %d) did not complete within %.3g s", what.c_str(),
                                             req->kind == p2p::Request::Kind::SEND ? req->hdr.tag : req->tag_filter,
                                             timeout_s_.load()));
    engine().cancel(req, st);
  } else if (st.code() == NEXAR_ERR_TIMEOUT) {
    st = req->result();
  }
  return fail(st);
}

}  // namespace nexar::comm
