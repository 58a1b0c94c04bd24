// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine: messages between ranks that hold no link to each other (a sparse
// NEXAR_TOPOLOGY). The sender wraps the message (RelayPrefix in front of the payload, on
// kRelayContext) and hands it to the link of the topology's next hop; each rank on the
// way takes the whole message and forwards it the same way, and the destination
// delivers it as if it came from its source.
//
// Order: routes are a pure function of (topology, source, destination) and links keep
// order, so messages from one source to one destination arrive in the order sent, as
// MPI requires. Memory: a relay counts the bytes it holds (arriving, or forwarded and not
// yet taken by the next link) against the unexpected limit; above it the link it reads
// from holds back credit, so the sender slows down instead of the relay growing.
#include <cstring>

#include "core/log.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace nexar::p2p {

using detail::RelayPrefix;
using detail::kRelayPrefixBytes;
using transport::MsgHeader;

namespace detail {

static_assert(sizeof(RelayPrefix) == kRelayPrefixBytes, "RelayPrefix is sent as it is laid out");

OwnedSend::OwnedSend(std::vector<uint8_t> bytes, uint32_t ctx, Engine* release_to)
    : bytes_(std::move(bytes)), release_to_(release_to) {
  hdr = MsgHeader{ctx, 0, bytes_.size(), 0};
  data = bytes_.data();
}

void OwnedSend::complete(const Status&) {
  if (release_to_) release_to_->relay_released(bytes_.size());
  delete this;
}

std::vector<uint8_t> relay_frame(const RelayPrefix& p, const uint8_t* data) {
  std::vector<uint8_t> out(kRelayPrefixBytes + p.inner.len);
  std::memcpy(out.data(), &p, kRelayPrefixBytes);
  if (p.inner.len) std::memcpy(out.data() + kRelayPrefixBytes, data, p.inner.len);
  return out;
}

}  // namespace detail

namespace {

// The prefix of a relayed message, checked against the world: false if it is malformed.
bool read_prefix(const std::vector<uint8_t>& bytes, int world_size, RelayPrefix* p) {
  if (bytes.size() < kRelayPrefixBytes) return false;
  std::memcpy(p, bytes.data(), kRelayPrefixBytes);
  return p->src >= 0 && p->src < world_size && p->dst >= 0 && p->dst < world_size &&
         p->inner.len == bytes.size() - kRelayPrefixBytes && p->inner.ctx != kRelayContext;
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

void Engine::wrap_relayed(int dst, Request* req) {
  RelayPrefix p{rank_, dst, req->hdr};
  req->stage = detail::relay_frame(p, req->data);
  req->hdr = MsgHeader{kRelayContext, 0, req->stage.size(), 0};
  req->data = req->stage.data();
}

bool Engine::relay_arrived(int via, std::vector<uint8_t> bytes) {
  RelayPrefix p;
  if (!read_prefix(bytes, size_, &p)) {
    NX_WARN(P2P, "rank %d: dropping a malformed relayed message (%zu bytes) from rank %d", rank_, bytes.size(), via);
    relay_released(bytes.size());
    return true;
  }
  const uint8_t* payload = bytes.data() + kRelayPrefixBytes;
  if (p.dst == rank_) {
    // Delivery copies the payload: the bytes stop counting as the relay's first.
    relay_released(bytes.size());
    if (p.inner.ctx == kControlContext) {
      if (ControlHandler* h = control_.load(std::memory_order_acquire)) h->on_control(p.src, payload, p.inner.len);
      return true;
    }
    std::vector<transport::PeerLink*> targets;
    const bool room = deliver_message(p.src, via, p.inner, payload, &targets);
    for (auto* l : targets) l->send_abort(p.inner.ctx, context_status(p.inner.ctx));
    return room;
  }
  transport::PeerLink* link = nullptr;
  bool room = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status gone = unreachable_locked(p.dst, true); gone.ok() && route_locked(p.dst) >= 0) {
      link = links_[static_cast<size_t>(route_locked(p.dst))];
      room = under_limit_locked();
      if (!room) link_waiting_[static_cast<size_t>(via)] = true;
    } else {
      NX_WARN(P2P, "rank %d: dropping a message from rank %d relayed to rank %d: %s", rank_, p.src, p.dst,
              gone.ok() ? "no route" : gone.to_string().c_str());
    }
  }
  if (!link) {
    relay_released(bytes.size());
    return true;
  }
  link->send(new detail::OwnedSend(std::move(bytes), kRelayContext, this));
  return room;
}

void Engine::relay_released(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  relay_bytes_ -= bytes;
  resume_links_if_room_locked();
}

}  // namespace nexar::p2p
