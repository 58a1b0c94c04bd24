// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine: messages between ranks that hold no link to each other (a sparse
// NEXAR_TOPOLOGY). The sender cuts the message into fragments (RelayPrefix in front of
// each piece, on kRelayContext; at most NEXAR_RELAY_BUDGET and the eager limits with
// their prefix, so that links carry them inline and in order) and queues them for the
// topology's next hop; each rank on the way forwards each fragment the same way, and the
// destination assembles the message as a link's large message (bound to the receive that
// matches its first fragment, or stored as unexpected), as if it came from its source.
//
// Order: routes are a pure function of (topology, source, destination), links keep
// order, and the fragments of one message enter the first link together, so messages
// (and their fragments) from one source to one destination arrive in the order sent, as
// MPI requires.
//
// Credit by hop class (NEXAR_RELAY_BUDGET): a fragment that crossed h links so far
// travels in class h (RelayPrefix::hops). Each rank grants each neighbour the budget of
// credit per class: a neighbour hands its link at most that many bytes of class h
// fragments for this rank that this rank has not given back yet; the rest wait there, in
// order, in a queue per (next hop, class). This rank gives the credit back (a
// kRelayCreditTag message) once it is done with a fragment: delivered here, or taken by
// its next hop's link. Relayed fragments never hold back a link's transport credit.
//
// No deadlock: a class h fragment waits only for class h + 1 credit of its next hop, or
// for nothing at its destination (delivery copies it). Classes end at the longest route,
// so the waits form no circle, and each class drains once the classes above it do: a
// ring of relays that are all full (kregular:2, every rank flooding the rank two ahead)
// still moves. Credit travels on the links' ordinary messages, which the peer holds back
// only while its unexpected store is over NEXAR_UNEXPECTED_LIMIT.
//
// Memory: at most the budget per neighbour and class arrives here before this rank gives
// credit back, and at most the budget per next hop and class waits in a link.
#include <algorithm>
#include <cstring>

#include "core/log.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace nexar::p2p {

using detail::RelayPrefix;
using transport::MsgHeader;

namespace detail {

static_assert(sizeof(RelayPrefix) == kRelayPrefixBytes, "RelayPrefix is sent as it is laid out");

OwnedSend::OwnedSend(std::vector<uint8_t> bytes, uint32_t ctx, Engine* release_to, CreditBack credit,
                     std::shared_ptr<SendGroup> group)
    : bytes_(std::move(bytes)), release_to_(release_to), credit_(credit), group_(std::move(group)) {
  hdr = MsgHeader{ctx, 0, bytes_.size(), 0};
  data = bytes_.data();
  // A fragment's credit goes back upstream (and the user's send completes) once QUIC took it.
  complete_when_taken = release_to != nullptr;  // only fragments have one
}

void OwnedSend::complete(const Status& st) {
  if (release_to_) release_to_->relay_released(credit_, bytes_.size());
  if (group_) {
    // The first failure completes the user's send; the last fragment, success.
    if (!st.ok()) group_->req->complete(st);
    if (group_->left.fetch_sub(1, std::memory_order_acq_rel) == 1) group_->req->complete(Status::Ok());
  }
  delete this;
}

std::vector<uint8_t> relay_frame(const RelayPrefix& p, const uint8_t* data, size_t n) {
  std::vector<uint8_t> out(kRelayPrefixBytes + n);
  std::memcpy(out.data(), &p, kRelayPrefixBytes);
  if (n) std::memcpy(out.data() + kRelayPrefixBytes, data, n);
  return out;
}

}  // namespace detail

namespace {

// The prefix of a relayed message, checked against the world: false if it is malformed.
bool read_prefix(const std::vector<uint8_t>& bytes, int world_size, RelayPrefix* p) {
  if (bytes.size() < kRelayPrefixBytes) return false;
  std::memcpy(p, bytes.data(), kRelayPrefixBytes);
  const uint64_t piece = bytes.size() - kRelayPrefixBytes;
  return p->src >= 0 && p->src < world_size && p->dst >= 0 && p->dst < world_size && p->offset <= p->inner.len &&
         piece <= p->inner.len - p->offset && (piece > 0 || p->inner.len == 0) && p->inner.ctx != kRelayContext &&
         p->hops < static_cast<uint32_t>(world_size);  // no route is longer
}

}  // namespace

int Engine::route_locked(int dst) const {
  if (links_[static_cast<size_t>(dst)]) return dst;
  const int hop = topology::next_hop(topology_, size_, rank_, dst);
  return links_[static_cast<size_t>(hop)] ? hop : -1;
}

int Engine::arrives_via_locked(int src) const {
  // Walks src's route to this rank: every rank on it sends straight here when the two
  // share a link (links are symmetric), else to its next hop.
  int at = src;
  for (int step = 0; step < size_; ++step) {
    if (links_[static_cast<size_t>(at)]) return at;
    at = topology::next_hop(topology_, size_, at, rank_);
  }
  return -1;
}

Status Engine::unreachable_locked(int peer, bool outbound) const {
  if (!lost_[static_cast<size_t>(peer)].ok()) return lost_[static_cast<size_t>(peer)];
  const int via = outbound ? route_locked(peer) : arrives_via_locked(peer);
  if (via < 0 || via == peer || lost_[static_cast<size_t>(via)].ok()) return Status::Ok();
  return Status(NEXAR_ERR_PEER_LOST,
                strprintf(outbound ? "rank %d, which relays this rank's messages to rank %d, was lost: %s"
                                   : "rank %d, which relays rank %d's messages to this rank, was lost: %s",
                          via, peer, lost_[static_cast<size_t>(via)].message().c_str()));
}

void Engine::fail_relayed_posted_locked(Context& c, int lost_relay) {
  for (auto it = c.posted.begin(); it != c.posted.end();) {
    const int src = (*it)->src_filter;
    if (src < 0 || src == lost_relay || links_[static_cast<size_t>(src)] || arrives_via_locked(src) != lost_relay) {
      ++it;
      continue;
    }
    (*it)->posted = false;
    (*it)->complete(unreachable_locked(src, false));
    it = c.posted.erase(it);
  }
}

void Engine::set_relay_budget(uint64_t budget_bytes, size_t fragment_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  relay_budget_ = budget_bytes;
  relay_fragment_ = std::max<size_t>(fragment_bytes, 1);
}

Engine::RelayStats Engine::relay_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return relay_stats_;
}

Engine::Lane& Engine::lane_locked(int hop, int cls) {
  auto& lanes = lanes_[static_cast<size_t>(hop)];
  if (lanes.size() <= static_cast<size_t>(cls)) lanes.resize(static_cast<size_t>(cls) + 1);
  return lanes[static_cast<size_t>(cls)];
}

void Engine::send_relayed(int dst, int hop, const MsgHeader& hdr, const uint8_t* data,
                          std::shared_ptr<detail::SendGroup> group) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t piece = relay_fragment_;
    const uint64_t count = hdr.len == 0 ? 1 : (hdr.len + piece - 1) / piece;
    if (group) group->left.store(static_cast<int>(count), std::memory_order_relaxed);
    // All fragments queue at once: nothing of another message from here to dst comes between.
    auto& waiting = lane_locked(hop, 0).waiting;
    for (uint64_t i = 0; i < count; ++i) {
      RelayPrefix p{rank_, dst, hdr, i * piece};
      const size_t n = static_cast<size_t>(std::min<uint64_t>(piece, hdr.len - p.offset));
      waiting.push_back(new detail::OwnedSend(detail::relay_frame(p, data + p.offset, n), kRelayContext, this,
                                              detail::CreditBack{}, group));
    }
  }
  drain_hop(hop);
}

void Engine::drain_hop(int hop) {
  const auto h = static_cast<size_t>(hop);
  std::unique_lock<std::mutex> lock(mu_);
  if (hop_draining_[h]) return;  // that thread sends what was queued meanwhile too
  hop_draining_[h] = true;
  for (;;) {
    std::vector<detail::OwnedSend*> ready;
    const bool lost = !lost_[h].ok();  // its link fails whatever it gets: nothing waits for credit
    for (Lane& lane : lanes_[h]) {
      while (!lane.waiting.empty()) {
        const uint64_t n = lane.waiting.front()->bytes();
        // One fragment is always allowed, even above a budget smaller than itself.
        if (!lost && lane.in_flight != 0 && lane.in_flight + n > relay_budget_) {
          ++relay_stats_.waited;
          break;
        }
        lane.in_flight += n;
        relay_stats_.peak_in_flight = std::max(relay_stats_.peak_in_flight, lane.in_flight);
        ready.push_back(lane.waiting.front());
        lane.waiting.pop_front();
      }
    }
    if (ready.empty()) {
      hop_draining_[h] = false;
      return;
    }
    transport::PeerLink* link = links_[h];  // route_locked chose hop: it has one
    lock.unlock();
    // A send may complete at once (relay_released takes mu_): never under it.
    for (auto* f : ready) link->send(f);
    lock.lock();
  }
}

bool Engine::relay_message(int via, std::vector<uint8_t> bytes, int tag) {
  if (tag != kRelayCreditTag) return relay_arrived(via, std::move(bytes));
  relay_credit_arrived(via, bytes.data(), bytes.size());
  return true;
}

void Engine::relay_credit_arrived(int via, const uint8_t* data, size_t n) {
  detail::RelayCredit c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& lanes = lanes_[static_cast<size_t>(via)];
    if (n == sizeof c) std::memcpy(&c, data, sizeof c);
    if (n != sizeof c || c.cls >= lanes.size() || lanes[c.cls].in_flight < c.bytes) {
      NX_WARN(P2P, "rank %d: dropping relay credit from rank %d for bytes it was not sent (%zu bytes)", rank_, via, n);
      return;
    }
    lanes[c.cls].in_flight -= c.bytes;
  }
  drain_hop(via);
}

void Engine::relay_released(const detail::CreditBack& credit, size_t bytes) {
  if (credit.to < 0) return;  // this rank's own fragment
  transport::PeerLink* link = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (lost_[static_cast<size_t>(credit.to)].ok()) link = links_[static_cast<size_t>(credit.to)];
  }
  if (!link) return;
  const detail::RelayCredit c{static_cast<uint32_t>(credit.cls), 0, bytes};
  std::vector<uint8_t> b(sizeof c);
  std::memcpy(b.data(), &c, sizeof c);
  auto* op = new detail::OwnedSend(std::move(b), kRelayContext);
  op->hdr.tag = kRelayCreditTag;
  link->send(op);
}

bool Engine::relay_arrived(int via, std::vector<uint8_t> bytes) {
  RelayPrefix p;
  if (!read_prefix(bytes, size_, &p)) {
    // Its class is unknown: no credit goes back (a peer that sends such a thing is broken).
    NX_WARN(P2P, "rank %d: dropping a malformed relayed message (%zu bytes) from rank %d", rank_, bytes.size(), via);
    return true;
  }
  const int cls = static_cast<int>(p.hops);
  const uint8_t* payload = bytes.data() + kRelayPrefixBytes;
  const size_t piece = bytes.size() - kRelayPrefixBytes;
  if (p.dst == rank_) {
    // Delivery copies the payload: via gets its credit back at once.
    relay_released(detail::CreditBack{via, cls}, bytes.size());
    if (p.inner.ctx == kControlContext) {
      if (ControlHandler* h = control_.load(std::memory_order_acquire); h && p.offset == 0 && piece == p.inner.len)
        h->on_control(p.src, payload, p.inner.len);
      return true;
    }
    if (p.offset != 0 || piece != p.inner.len) return relay_deliver(via, p, payload, piece);
    std::vector<transport::PeerLink*> targets;
    const bool room = deliver_message(p.src, via, p.inner, payload, &targets);
    for (auto* l : targets) l->send_abort(p.inner.ctx, context_status(p.inner.ctx));
    return room;
  }
  int hop = -1;
  const size_t total = bytes.size();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status gone = unreachable_locked(p.dst, true); gone.ok() && route_locked(p.dst) >= 0) {
      hop = route_locked(p.dst);
      relay_stats_.forwarded_bytes += total;
      // One class up on the next link: it waits only for that class's credit.
      ++p.hops;
      std::memcpy(bytes.data(), &p, kRelayPrefixBytes);
      lane_locked(hop, cls + 1).waiting.push_back(new detail::OwnedSend(
          std::move(bytes), kRelayContext, this, detail::CreditBack{via, cls}));
    } else {
      NX_WARN(P2P, "rank %d: dropping a message from rank %d relayed to rank %d: %s", rank_, p.src, p.dst,
              gone.ok() ? "no route" : gone.to_string().c_str());
    }
  }
  if (hop < 0) {
    relay_released(detail::CreditBack{via, cls}, total);
    return true;
  }
  drain_hop(hop);
  return true;  // relayed fragments never hold a link back: credit bounds them
}

bool Engine::relay_deliver(int via, const RelayPrefix& p, const uint8_t* piece, size_t n) {
  std::vector<transport::PeerLink*> targets;
  bool room;
  {
    std::lock_guard<std::mutex> lock(mu_);
    transport::InboundMsg*& ib = relay_rx_[static_cast<size_t>(p.src)];
    if (p.offset == 0 && !ib) {
      Context& c = context_locked(p.inner.ctx);
      if (Status bad = check_collective_locked(c, p.src, p.inner); !bad.ok()) abort_context_locked(c, bad, true, &targets);
      ib = begin_locked(p.src, p.inner);
    }
    if (!ib || ib->received != p.offset || ib->hdr.ctx != p.inner.ctx || ib->hdr.len != p.inner.len) {
      NX_WARN(P2P, "rank %d: dropping a relayed fragment from rank %d at offset %llu: not the next piece of a message",
              rank_, p.src, static_cast<unsigned long long>(p.offset));
      return true;
    }
    if (append_locked(ib, piece, n)) ib = nullptr;
    room = under_limit_locked();
    if (!room) link_waiting_[static_cast<size_t>(via)] = true;
  }
  for (auto* l : targets) l->send_abort(p.inner.ctx, context_status(p.inner.ctx));
  return room;
}

void Engine::abandon_relayed_locked(int lost, const Status& why) {
  for (size_t s = 0; s < relay_rx_.size(); ++s) {
    transport::InboundMsg* ib = relay_rx_[s];
    if (!ib || (static_cast<int>(s) != lost && arrives_via_locked(static_cast<int>(s)) != lost)) continue;
    relay_rx_[s] = nullptr;
    abandon_locked(ib, why);
  }
}

}  // namespace nexar::p2p
