// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The engine's user side: contexts, posting sends and receives, matching and binding a
// message to a receive, cancelling. Arrivals are in engine_arrival.cc, probes in
// engine_probe.cc, lost peers, aborts and the control channel in engine_faults.cc.
#include "p2p/engine.h"

#include <algorithm>

#include "core/log.h"
#include "core/params.h"
#include "p2p/engine_detail.h"

namespace nexar::p2p {

using detail::erase_one;
using detail::matches;
using transport::InboundMsg;
using transport::MsgHeader;

Engine::Engine(int world_rank, int world_size, size_t unexpected_limit)
    : rank_(world_rank),
      size_(world_size),
      links_(static_cast<size_t>(world_size), nullptr),
      lost_(static_cast<size_t>(world_size)),
      lost_noticed_(static_cast<size_t>(world_size), false),
      store_(unexpected_limit, static_cast<size_t>(std::max<int64_t>(param::NEXAR_SCRATCH_KEEP.get(), 0))),
      link_waiting_(static_cast<size_t>(world_size), false),
      lanes_(static_cast<size_t>(world_size)),
      hop_draining_(static_cast<size_t>(world_size), false),
      relay_rx_(static_cast<size_t>(world_size), nullptr) {}

Engine::~Engine() {
  for (auto& [id, c] : contexts_) {
    for (UnexpectedMsg* m : c.unexpected) {
      if (m->inflight) m->inflight->um = nullptr;
      store_.release(m);
      delete m;
    }
  }
  for (transport::InboundMsg* ib : relay_rx_) delete ib;
  for (auto& hop : lanes_)
    for (Lane& lane : hop)
      for (detail::OwnedSend* f : lane.waiting) delete f;
}

void Engine::set_link(int peer, transport::PeerLink* link) {
  std::lock_guard<std::mutex> lock(mu_);
  links_[static_cast<size_t>(peer)] = link;
}

void Engine::set_topology(const topology::Topology& t) {
  std::lock_guard<std::mutex> lock(mu_);
  topology_ = t;
}

void Engine::register_context(uint32_t ctx, std::vector<int> members) {
  std::lock_guard<std::mutex> lock(mu_);
  context_locked(ctx).members = std::move(members);
}

void Engine::unregister_context(uint32_t ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return;
  fail_posted_locked(it->second, Status(NEXAR_ERR_ABORTED, "communicator destroyed"), -1);
  for (UnexpectedMsg* m : it->second.unexpected) {
    if (m->inflight) m->inflight->discard = true, m->inflight->um = nullptr;
    store_.release(m);
    delete m;
  }
  contexts_.erase(it);
  bind_gen_.fetch_add(1, std::memory_order_release);
  resume_links_if_room_locked();
}

void Engine::set_arrival_listener(uint32_t ctx, ArrivalListener* l) {
  std::lock_guard<std::mutex> lock(mu_);
  Context& c = context_locked(ctx);
  c.listener = l;
  if (l && !c.unexpected.empty()) l->on_arrival();
}

Engine::Context& Engine::context_locked(uint32_t ctx) { return contexts_[ctx]; }

Status Engine::isend(uint32_t ctx, int dst, int tag, const void* buf, size_t bytes, uint64_t aux,
                     RequestPtr* out) {
  auto req = std::make_shared<Request>(Request::Kind::SEND, &waiter_);
  req->hdr = MsgHeader{ctx, tag, bytes, aux};
  req->data = static_cast<const uint8_t*>(buf);
  req->peer = dst;
  transport::PeerLink* link;
  int hop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Context& c = context_locked(ctx);
    if (!c.failed.ok()) return c.failed;
    if (Status gone = unreachable_locked(dst, true); !gone.ok()) return gone;
    hop = route_locked(dst);
    if (hop < 0) return Status(NEXAR_ERR_INTERNAL, strprintf("no link or route to rank %d", dst));
    link = links_[static_cast<size_t>(hop)];
  }
  req->keepalive = req;
  *out = req;
  if (hop != dst) {
    auto group = std::make_shared<detail::SendGroup>();
    group->req = req;
    send_relayed(dst, hop, req->hdr, req->data, std::move(group));
    return Status::Ok();
  }
  req->link = link;
  link->send(req.get());  // may complete at once
  return Status::Ok();
}

Status Engine::irecv(uint32_t ctx, int src, int tag, void* buf, size_t capacity, const uint64_t* expect_aux,
                     RequestPtr* out) {
  auto req = std::make_shared<Request>(Request::Kind::RECV, &waiter_);
  if (expect_aux) {
    req->check_aux = true;
    req->aux = *expect_aux;
  }
  req->buf = static_cast<uint8_t*>(buf);
  req->capacity = capacity;
  *out = req;
  return post_recv(ctx, src, tag, req);
}

Status Engine::irecvv(uint32_t ctx, int src, int tag, std::vector<iovec> regions, RequestPtr* out) {
  auto req = std::make_shared<Request>(Request::Kind::RECV, &waiter_);
  for (const iovec& r : regions) req->capacity += r.iov_len;
  req->regions = std::move(regions);
  *out = req;
  return post_recv(ctx, src, tag, req);
}

void Engine::expect_from(int peer) {
  transport::PeerLink* link = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int via = peer >= 0 && peer < size_ && peer != rank_ ? arrives_via_locked(peer) : -1;
    if (via >= 0 && via != rank_) link = links_[static_cast<size_t>(via)];
  }
  if (link) link->expect();
}

Status Engine::post_recv(uint32_t ctx, int src, int tag, const RequestPtr& req) {
  req->ctx = ctx;
  req->src_filter = src;
  req->tag_filter = tag;
  std::unique_lock<std::mutex> lock(mu_);
  Context& c = context_locked(ctx);
  if (!c.failed.ok()) return c.failed;
  // The oldest stored message that matches, in arrival order.
  for (auto it = c.unexpected.begin(); it != c.unexpected.end(); ++it) {
    UnexpectedMsg* m = *it;
    if (!matches(src, tag, m->src, m->hdr.tag)) continue;
    c.unexpected.erase(it);
    InboundMsg* ib = m->inflight;
    if (!bind_locked(req, m->src, m->hdr)) {
      // Dropped: a link waiting to place it (shared memory) learns so from the generation.
      if (ib) ib->discard = true, ib->um = nullptr, bind_gen_.fetch_add(1, std::memory_order_release);
      store_.release(m);
    } else {
      store_.drain(m, [&](size_t off, const uint8_t* d, size_t n) { req->write(off, d, n); });
      if (ib) {
        ib->um = nullptr;
        ib->req = req;
        req->inflight = ib;
        bind_gen_.fetch_add(1, std::memory_order_release);
      } else {
        req->complete(Status::Ok());
      }
    }
    delete m;
    resume_links_if_room_locked();
    return Status::Ok();
  }
  if (src >= 0)
    if (Status gone = unreachable_locked(src, false); !gone.ok()) return gone;
  req->posted = true;
  c.posted.push_back(req);
  const std::vector<transport::PeerLink*> from = expect_links_locked(c, src);
  lock.unlock();
  for (transport::PeerLink* l : from) l->expect();
  return Status::Ok();
}

std::vector<transport::PeerLink*> Engine::expect_links_locked(Context& c, int src) {
  std::vector<transport::PeerLink*> out;
  if (src >= 0) {
    const int via = arrives_via_locked(src);
    if (via >= 0 && via != rank_) out.push_back(links_[static_cast<size_t>(via)]);
    return out;
  }
  if (c.any_source_expected) return out;
  c.any_source_expected = true;
  auto add = [&](int r) {
    if (r != rank_ && lost_[static_cast<size_t>(r)].ok() && links_[static_cast<size_t>(r)])
      out.push_back(links_[static_cast<size_t>(r)]);
  };
  if (c.members.empty())
    for (int r = 0; r < size_; ++r) add(r);
  for (int r : c.members) add(r);
  return out;
}

bool Engine::bind_locked(const RequestPtr& req, int src, const MsgHeader& hdr) {
  req->source = src;
  req->tag = hdr.tag;
  req->bytes = hdr.len;
  req->aux_received = hdr.aux;
  if (req->check_aux && hdr.aux != req->aux) {
    const Context& c = context_locked(req->ctx);
    req->complete(Status(NEXAR_ERR_MISMATCH, c.describe ? c.describe(req->aux, hdr.aux, src, rank_)
                                                        : strprintf("rank %d runs another collective", src)));
    return false;
  }
  if (hdr.len > req->capacity) {
    // Named by its rank in the communicator (members are in communicator order).
    const auto& m = context_locked(req->ctx).members;
    const auto at = std::find(m.begin(), m.end(), src);
    const int from = at == m.end() ? src : static_cast<int>(at - m.begin());
    req->complete(Status(NEXAR_ERR_INVALID_ARGUMENT,
                         strprintf("message of %llu bytes from rank %d (tag %d) is longer than the posted receive of "
                                   "%zu bytes (the message is dropped)",
                                   static_cast<unsigned long long>(hdr.len), from, hdr.tag, req->capacity)));
    return false;
  }
  return true;
}

void Engine::cancel(const RequestPtr& req, const Status& why) {
  if (req->kind == Request::Kind::SEND) {
    if (req->link) req->link->cancel(req.get(), why);
    req->complete(why);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (req->posted) {
    erase_one(context_locked(req->ctx).posted, req);
    req->posted = false;
  }
  if (req->inflight) {
    // A link may be writing into req->buf: the buffer is the caller's again only after.
    placed_cv_.wait(lock, [&] { return !req->inflight || !req->inflight->placing; });
  }
  if (req->inflight) {
    req->inflight->discard = true;
    req->inflight->req.reset();
    req->inflight = nullptr;
    bind_gen_.fetch_add(1, std::memory_order_release);
  }
  req->complete(why);
}

RequestPtr Engine::match_posted_locked(Context& c, int src, int tag) {
  for (auto it = c.posted.begin(); it != c.posted.end(); ++it) {
    if (matches((*it)->src_filter, (*it)->tag_filter, src, tag)) {
      RequestPtr r = *it;
      c.posted.erase(it);
      r->posted = false;
      return r;
    }
  }
  return nullptr;
}

}  // namespace nexar::p2p
