// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "p2p/engine.h"

#include <algorithm>
#include <cstring>

#include "core/log.h"

namespace nexar::transport {
// A message arriving in pieces: bound to a receive, stored as unexpected, or discarded.
struct InboundMsg {
  int src = -1;
  MsgHeader hdr;
  uint64_t received = 0;
  p2p::RequestPtr req;
  p2p::UnexpectedMsg* um = nullptr;
  bool discard = false;
  bool placing = false;  // a link writes the payload straight into req->buf right now
};
}  // namespace nexar::transport

namespace nexar::p2p {

using transport::InboundMsg;
using transport::MsgHeader;

namespace {
bool matches(int filter_src, int filter_tag, int src, int tag) {
  return (filter_src == NEXAR_ANY_SOURCE || filter_src == src) && (filter_tag == NEXAR_ANY_TAG || filter_tag == tag);
}

// A control message in flight: owns its bytes, frees itself once the link is done.
class ControlSend final : public transport::SendOp {
 public:
  ControlSend(const void* data, size_t bytes)
      : bytes_(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes) {
    hdr = MsgHeader{kControlContext, 0, bytes, 0};
    this->data = bytes_.data();
  }
  void complete(const Status&) override { delete this; }

 private:
  std::vector<uint8_t> bytes_;
};

template <class Seq, class T>
void erase_one(Seq& seq, const T& v) {
  auto it = std::find(seq.begin(), seq.end(), v);
  if (it != seq.end()) seq.erase(it);
}
}  // namespace

Engine::Engine(int world_rank, int world_size, size_t unexpected_limit)
    : rank_(world_rank),
      size_(world_size),
      links_(static_cast<size_t>(world_size), nullptr),
      lost_(static_cast<size_t>(world_size)),
      store_(unexpected_limit),
      link_waiting_(static_cast<size_t>(world_size), false) {}

Engine::~Engine() {
  for (auto& [id, c] : contexts_) {
    for (UnexpectedMsg* m : c.unexpected) {
      if (m->inflight) m->inflight->um = nullptr;
      store_.release(m);
      delete m;
    }
  }
}

void Engine::set_link(int peer, transport::PeerLink* link) {
  std::lock_guard<std::mutex> lock(mu_);
  links_[static_cast<size_t>(peer)] = link;
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
  {
    std::lock_guard<std::mutex> lock(mu_);
    Context& c = context_locked(ctx);
    if (!c.failed.ok()) return c.failed;
    if (!lost_[static_cast<size_t>(dst)].ok()) return lost_[static_cast<size_t>(dst)];
    link = links_[static_cast<size_t>(dst)];
    if (!link) return Status(NEXAR_ERR_INTERNAL, strprintf("no link to rank %d", dst));
  }
  req->link = link;
  req->keepalive = req;
  *out = req;
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
    if (peer >= 0 && peer < size_ && peer != rank_) link = links_[static_cast<size_t>(peer)];
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
  if (src >= 0 && !lost_[static_cast<size_t>(src)].ok()) return lost_[static_cast<size_t>(src)];
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
    if (src != rank_ && links_[static_cast<size_t>(src)]) out.push_back(links_[static_cast<size_t>(src)]);
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

bool Engine::find_unexpected_locked(const Context& c, int src, int tag, Probed* out) const {
  for (const UnexpectedMsg* m : c.unexpected) {
    if (!matches(src, tag, m->src, m->hdr.tag)) continue;
    *out = Probed{m->src, m->hdr.tag, m->hdr.len};
    return true;
  }
  return false;
}

Status Engine::iprobe(uint32_t ctx, int src, int tag, bool* found, Probed* out) {
  std::lock_guard<std::mutex> lock(mu_);
  const Context& c = context_locked(ctx);
  *found = false;
  if (!c.failed.ok()) return c.failed;
  if (find_unexpected_locked(c, src, tag, out)) {
    *found = true;
    return Status::Ok();
  }
  if (src >= 0 && !lost_[static_cast<size_t>(src)].ok()) return lost_[static_cast<size_t>(src)];
  return Status::Ok();
}

Status Engine::probe(uint32_t ctx, int src, int tag, Clock::time_point deadline, Probed* out) {
  std::vector<char> was_lost(static_cast<size_t>(size_));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t r = 0; r < was_lost.size(); ++r) was_lost[r] = !lost_[r].ok();
  }
  // A member of ctx lost since the probe began (ANY_SOURCE): the status it was lost with.
  auto newly_lost = [&]() -> Status {
    std::lock_guard<std::mutex> lock(mu_);
    const Context& c = context_locked(ctx);
    for (size_t r = 0; r < was_lost.size(); ++r) {
      if (was_lost[r] || lost_[r].ok()) continue;
      if (c.members.empty() || std::find(c.members.begin(), c.members.end(), static_cast<int>(r)) != c.members.end())
        return lost_[r];
    }
    return Status::Ok();
  };
  std::vector<transport::PeerLink*> from;
  {
    std::lock_guard<std::mutex> lock(mu_);
    from = expect_links_locked(context_locked(ctx), src);
  }
  for (transport::PeerLink* l : from) l->expect();
  probers_.fetch_add(1, std::memory_order_acq_rel);
  Status st;
  bool found = false;
  const bool over = waiter_.wait(
      [&] {
        st = iprobe(ctx, src, tag, &found, out);
        if (st.ok() && !found && src == NEXAR_ANY_SOURCE) st = newly_lost();
        return found || !st.ok();
      },
      deadline);
  probers_.fetch_sub(1, std::memory_order_acq_rel);
  if (!over) return Status(NEXAR_ERR_TIMEOUT, "no matching message arrived in time");
  return st;
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

bool Engine::on_message(int src, const MsgHeader& hdr, const uint8_t* data) {
  if (hdr.ctx == kControlContext) {
    if (ControlHandler* h = control_.load(std::memory_order_acquire)) h->on_control(src, data, hdr.len);
    return true;
  }
  std::vector<transport::PeerLink*> targets;
  bool ok = deliver_message(src, hdr, data, &targets);
  for (auto* l : targets) l->send_abort(hdr.ctx, context_status(hdr.ctx));
  return ok;
}

bool Engine::deliver_message(int src, const MsgHeader& hdr, const uint8_t* data,
                               std::vector<transport::PeerLink*>* targets) {
  std::lock_guard<std::mutex> lock(mu_);
  Context& c = context_locked(hdr.ctx);
  if (Status bad = check_collective_locked(c, src, hdr); !bad.ok()) abort_context_locked(c, bad, true, targets);
  if (RequestPtr req = match_posted_locked(c, src, hdr.tag)) {
    if (bind_locked(req, src, hdr)) {
      req->write(0, data, hdr.len);
      req->complete(Status::Ok());
    }
    return true;
  }
  auto* m = new UnexpectedMsg{src, hdr, {}, 0, nullptr};
  store_.append(m, data, hdr.len);
  c.unexpected.push_back(m);
  note_unexpected_locked(c);
  if (!under_limit_locked()) {
    link_waiting_[static_cast<size_t>(src)] = true;
    return false;
  }
  return true;
}

InboundMsg* Engine::on_message_begin(int src, const MsgHeader& hdr) {
  // Control messages are small: one that comes in pieces is not ours to deliver.
  if (hdr.ctx == kControlContext) return new InboundMsg{src, hdr, 0, nullptr, nullptr, true};
  std::vector<transport::PeerLink*> targets;
  InboundMsg* ib;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Context& c = context_locked(hdr.ctx);
    if (Status bad = check_collective_locked(c, src, hdr); !bad.ok()) abort_context_locked(c, bad, true, &targets);
    ib = begin_locked(src, hdr);
  }
  for (auto* l : targets) l->send_abort(hdr.ctx, context_status(hdr.ctx));
  return ib;
}

InboundMsg* Engine::begin_locked(int src, const MsgHeader& hdr) {
  auto* ib = new InboundMsg{src, hdr, 0, nullptr, nullptr, false};
  Context& c = context_locked(hdr.ctx);
  if (RequestPtr req = match_posted_locked(c, src, hdr.tag)) {
    if (bind_locked(req, src, hdr)) {
      ib->req = req;
      req->inflight = ib;
    } else {
      ib->discard = true;
    }
    return ib;
  }
  ib->um = new UnexpectedMsg{src, hdr, {}, 0, ib};
  c.unexpected.push_back(ib->um);
  note_unexpected_locked(c);
  return ib;
}

bool Engine::on_message_data(InboundMsg* ib, const uint8_t* data, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  n = static_cast<size_t>(std::min<uint64_t>(n, ib->hdr.len - ib->received));
  if (ib->req) {
    ib->req->write(ib->received, data, n);
  } else if (ib->um) {
    store_.append(ib->um, data, n);
  }
  ib->received += n;
  const int src = ib->src;
  if (ib->received == ib->hdr.len) {
    if (ib->req) {
      ib->req->inflight = nullptr;
      ib->req->complete(Status::Ok());
    } else if (ib->um) {
      ib->um->inflight = nullptr;
    }
    delete ib;
  }
  if (!under_limit_locked()) {
    link_waiting_[static_cast<size_t>(src)] = true;
    return false;
  }
  return true;
}

void Engine::on_message_abandon(InboundMsg* ib, const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ib->req) {
    ib->req->inflight = nullptr;
    ib->req->complete(why);
  } else if (ib->um) {
    drop_unexpected_locked(ib);
  }
  delete ib;
}

void Engine::drop_unexpected_locked(transport::InboundMsg* ib) {
  ib->um->inflight = nullptr;
  erase_one(context_locked(ib->hdr.ctx).unexpected, ib->um);
  store_.release(ib->um);
  delete ib->um;
}

transport::Placement Engine::claim_placement(InboundMsg* ib, uint8_t** dst) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ib->req) {
    ib->placing = true;
    Request& r = *ib->req;
    if (!r.regions.empty() && r.stage.size() != ib->hdr.len) r.stage.resize(ib->hdr.len);
    *dst = r.regions.empty() ? r.buf : r.stage.data();
    return transport::Placement::BOUND;
  }
  if (ib->um && !ib->discard) return transport::Placement::PENDING;
  return transport::Placement::DISCARD;
}

void Engine::finish_placement(InboundMsg* ib, const Status& st) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ib->req) {
      ib->req->inflight = nullptr;
      Request& r = *ib->req;
      if (st.ok()) r.bytes = ib->hdr.len;
      if (st.ok() && !r.regions.empty()) r.write(0, r.stage.data(), ib->hdr.len);
      std::vector<uint8_t>().swap(r.stage);
      r.complete(st);
    } else if (ib->um) {  // finished before any receive matched it (the peer is gone)
      drop_unexpected_locked(ib);
    }
    delete ib;
  }
  placed_cv_.notify_all();
}

void Engine::release_placement(InboundMsg* ib) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ib->placing = false;
  }
  placed_cv_.notify_all();
}

void Engine::fail_posted_locked(Context& c, const Status& why, int only_src) {
  for (auto it = c.posted.begin(); it != c.posted.end();) {
    if (only_src < 0 || (*it)->src_filter == only_src || (*it)->src_filter == NEXAR_ANY_SOURCE) {
      (*it)->posted = false;
      (*it)->complete(why);
      it = c.posted.erase(it);
    } else {
      ++it;
    }
  }
}

void Engine::on_peer_lost(int src, const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!lost_[static_cast<size_t>(src)].ok()) return;
    note_lost_locked(src, why);
  }
  if (ControlHandler* h = control_.load(std::memory_order_acquire)) h->on_lost(src);
}

void Engine::note_lost_locked(int src, const Status& why) {
  lost_[static_cast<size_t>(src)] = why;
  NX_WARN(P2P, "rank %d lost: %s", src, why.to_string().c_str());
  // A thread asleep in a wait that no request stands for (a shared-slot collective)
  // re-checks its peers now.
  abort_epoch_.fetch_add(1, std::memory_order_acq_rel);
  waiter_.ring();
  for (auto& [id, c] : contexts_) {
    bool member = c.members.empty() || std::find(c.members.begin(), c.members.end(), src) != c.members.end();
    if (!member) continue;
    fail_posted_locked(c, why, src);
    // Messages from src still arriving can never complete.
    for (auto it = c.unexpected.begin(); it != c.unexpected.end();) {
      UnexpectedMsg* m = *it;
      if (m->src == src && !m->complete()) {
        if (m->inflight) m->inflight->um = nullptr, m->inflight->discard = true;
        store_.release(m);
        delete m;
        it = c.unexpected.erase(it);
      } else {
        ++it;
      }
    }
  }
  bind_gen_.fetch_add(1, std::memory_order_release);
}

void Engine::on_remote_abort(int src, uint32_t ctx, const Status& why) {
  Status s(why.code(), strprintf("rank %d reported: %s", src, why.message().c_str()));
  // A revocation is passed on once by every member that hears it, so it reaches all of
  // them even when the revoking rank dies while telling them.
  abort_context(ctx, s, why.code() == NEXAR_ERR_REVOKED);
}

void Engine::abort_context(uint32_t ctx, const Status& why, bool tell_peers) {
  std::vector<transport::PeerLink*> targets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    abort_context_locked(context_locked(ctx), why, tell_peers, &targets);
  }
  for (auto* l : targets) l->send_abort(ctx, why);
}

void Engine::abort_context_locked(Context& c, const Status& why, bool tell_peers,
                                  std::vector<transport::PeerLink*>* targets) {
  // A revocation overrides an earlier failure: later calls report NEXAR_ERR_REVOKED.
  if (!c.failed.ok() && (c.failed.code() == NEXAR_ERR_REVOKED || why.code() != NEXAR_ERR_REVOKED)) return;
  c.failed = why;
  abort_epoch_.fetch_add(1, std::memory_order_acq_rel);
  fail_posted_locked(c, why, -1);
  waiter_.ring();  // also wakes a thread in a shared-slot wait on ctx or in probe()
  if (tell_peers)
    for (int m : c.members)
      if (m != rank_ && lost_[static_cast<size_t>(m)].ok() && links_[static_cast<size_t>(m)])
        targets->push_back(links_[static_cast<size_t>(m)]);
}

Status Engine::check_collective_locked(const Context& c, int src, const MsgHeader& hdr) const {
  if (!c.coll_active || !c.failed.ok()) return Status::Ok();
  if (static_cast<uint32_t>(hdr.tag) >> kCollSeqShift != c.coll_seq || hdr.aux == c.coll_aux) return Status::Ok();
  return Status(NEXAR_ERR_MISMATCH, c.describe ? c.describe(c.coll_aux, hdr.aux, src, rank_)
                                               : strprintf("rank %d runs another collective", src));
}

void Engine::set_collective(uint32_t ctx, uint32_t seq, uint64_t aux, AuxDescriber describe) {
  std::vector<transport::PeerLink*> targets;
  Status bad;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Context& c = context_locked(ctx);
    c.coll_active = true;
    c.coll_seq = seq;
    c.coll_aux = aux;
    c.describe = describe;
    for (UnexpectedMsg* m : c.unexpected) {
      bad = check_collective_locked(c, m->src, m->hdr);
      if (!bad.ok()) {
        abort_context_locked(c, bad, true, &targets);
        break;
      }
    }
  }
  for (auto* l : targets) l->send_abort(ctx, bad);
}

Status Engine::context_status(uint32_t ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  return context_locked(ctx).failed;
}

void Engine::set_control_handler(ControlHandler* h) { control_.store(h, std::memory_order_release); }

void Engine::send_control(int dst, const void* data, size_t bytes) {
  transport::PeerLink* link;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!lost_[static_cast<size_t>(dst)].ok()) return;
    link = links_[static_cast<size_t>(dst)];
  }
  if (link) link->send(new ControlSend(data, bytes));
}

bool Engine::is_lost(int r) {
  std::lock_guard<std::mutex> lock(mu_);
  return !lost_[static_cast<size_t>(r)].ok();
}

bool Engine::under_limit_locked() const { return !store_.over_limit(); }

void Engine::resume_links_if_room_locked() {
  if (!under_limit_locked()) return;
  for (size_t i = 0; i < link_waiting_.size(); ++i) {
    if (link_waiting_[i] && links_[i]) {
      link_waiting_[i] = false;
      links_[i]->resume();
    }
  }
}

}  // namespace nexar::p2p
