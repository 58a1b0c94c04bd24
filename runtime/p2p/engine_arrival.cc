// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine: messages arriving from links (whole, or in pieces, or placed straight into a
// receive by shared memory), and the flow control that holds a link back while the
// unexpected store is over its limit.
#include <algorithm>

#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace nexar::p2p {

using detail::erase_one;
using transport::InboundMsg;
using transport::MsgHeader;

bool Engine::on_message(int src, const MsgHeader& hdr, const uint8_t* data) {
  if (hdr.ctx == kControlContext) {
    if (ControlHandler* h = control_.load(std::memory_order_acquire)) h->on_control(src, data, hdr.len);
    return true;
  }
  if (hdr.ctx == kLostNoticeContext) {
    on_lost_notice(src, data, hdr.len);
    return true;
  }
  if (hdr.ctx == kRelayContext) return relay_message(src, std::vector<uint8_t>(data, data + hdr.len), hdr.tag);
  std::vector<transport::PeerLink*> targets;
  bool ok = deliver_message(src, src, hdr, data, &targets);
  for (auto* l : targets) l->send_abort(hdr.ctx, context_status(hdr.ctx));
  return ok;
}

bool Engine::deliver_message(int src, int via, const MsgHeader& hdr, const uint8_t* data,
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
    link_waiting_[static_cast<size_t>(via)] = true;
    return false;
  }
  return true;
}

InboundMsg* Engine::on_message_begin(int src, const MsgHeader& hdr) {
  // Control messages and notices are small: one that comes in pieces is not ours to deliver.
  if (hdr.ctx == kControlContext || hdr.ctx == kLostNoticeContext) return new InboundMsg{src, hdr, 0, nullptr, nullptr, true};
  if (hdr.ctx == kRelayContext) {
    // Whole before use; the sender's relay credit bounds it (engine_relay.cc).
    auto* ib = new InboundMsg{src, hdr, 0, nullptr, nullptr, false};
    ib->relay = true;
    ib->relay_bytes.reserve(hdr.len);
    return ib;
  }
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
  if (ib->relay) {  // only the delivering link touches it until it is whole
    n = static_cast<size_t>(std::min<uint64_t>(n, ib->hdr.len - ib->relay_bytes.size()));
    ib->relay_bytes.insert(ib->relay_bytes.end(), data, data + n);
    if (ib->relay_bytes.size() < ib->hdr.len) return true;
    const int via = ib->src, tag = ib->hdr.tag;
    std::vector<uint8_t> bytes = std::move(ib->relay_bytes);
    delete ib;
    return relay_message(via, std::move(bytes), tag);
  }
  std::lock_guard<std::mutex> lock(mu_);
  const int src = ib->src;
  append_locked(ib, data, n);
  if (!under_limit_locked()) {
    link_waiting_[static_cast<size_t>(src)] = true;
    return false;
  }
  return true;
}

bool Engine::append_locked(InboundMsg* ib, const uint8_t* data, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, ib->hdr.len - ib->received));
  if (ib->req) {
    ib->req->write(ib->received, data, n);
  } else if (ib->um) {
    store_.append(ib->um, data, n);
  }
  ib->received += n;
  if (ib->received < ib->hdr.len) return false;
  if (ib->req) {
    ib->req->inflight = nullptr;
    ib->req->complete(Status::Ok());
  } else if (ib->um) {
    ib->um->inflight = nullptr;
  }
  delete ib;
  return true;
}

void Engine::on_message_abandon(InboundMsg* ib, const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ib->relay) {
    delete ib;
    return;
  }
  abandon_locked(ib, why);
}

void Engine::abandon_locked(InboundMsg* ib, const Status& why) {
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
  if (ib->relay) {
    ib->placing = true;
    ib->relay_bytes.resize(ib->hdr.len);
    *dst = ib->relay_bytes.data();
    return transport::Placement::BOUND;
  }
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
  if (ib->relay) {
    const int via = ib->src, tag = ib->hdr.tag;
    std::vector<uint8_t> bytes = std::move(ib->relay_bytes);
    delete ib;
    if (st.ok()) relay_message(via, std::move(bytes), tag);
    return;
  }
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
