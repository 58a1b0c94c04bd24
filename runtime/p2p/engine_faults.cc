// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine: failures. Lost peers, aborted and revoked contexts, collectives that disagree
// across ranks, and the fault-tolerance control channel.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/log.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace nexar::p2p {

using transport::MsgHeader;

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
  std::vector<transport::PeerLink*> tell;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!lost_[static_cast<size_t>(src)].ok()) return;
    note_lost_locked(src, why);
    tell = lost_notice_links_locked(src, -1);
  }
  send_lost_notice(tell, src, why);
  drain_hop(src);  // fragments waiting for its credit go to its failed link, which fails them
  if (ControlHandler* h = control_.load(std::memory_order_acquire)) h->on_lost(src);
}

std::vector<transport::PeerLink*> Engine::lost_notice_links_locked(int lost, int except) {
  std::vector<transport::PeerLink*> out;
  if (topology::complete(topology_, size_) || lost_noticed_[static_cast<size_t>(lost)]) return out;
  lost_noticed_[static_cast<size_t>(lost)] = true;
  for (int p = 0; p < size_; ++p)
    if (p != rank_ && p != lost && p != except && links_[static_cast<size_t>(p)] && lost_[static_cast<size_t>(p)].ok())
      out.push_back(links_[static_cast<size_t>(p)]);
  return out;
}

void Engine::send_lost_notice(const std::vector<transport::PeerLink*>& to, int lost, const Status& why) {
  // The lost rank (4 bytes), then the first reporter's text.
  const std::string text = why.message().substr(0, 512);
  std::vector<uint8_t> notice(sizeof(int32_t) + text.size());
  const int32_t who = lost;
  std::memcpy(notice.data(), &who, sizeof who);
  std::memcpy(notice.data() + sizeof who, text.data(), text.size());
  for (transport::PeerLink* l : to) l->send(new detail::OwnedSend(notice, kLostNoticeContext));
}

void Engine::on_lost_notice(int from, const uint8_t* data, size_t bytes) {
  int32_t lost = -1;
  if (bytes >= sizeof lost) std::memcpy(&lost, data, sizeof lost);
  if (lost < 0 || lost >= size_ || lost == rank_) {
    NX_WARN(P2P, "rank %d: dropping a malformed lost-rank notice (%zu bytes) from rank %d", rank_, bytes, from);
    return;
  }
  const std::string text(reinterpret_cast<const char*>(data) + sizeof lost, bytes - sizeof lost);
  const Status why(NEXAR_ERR_PEER_LOST, strprintf("rank %d was lost (rank %d passed on: %s)", lost, from, text.c_str()));
  std::vector<transport::PeerLink*> tell;
  bool noted = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A rank holding its own link to the lost one hears it there.
    if (!links_[static_cast<size_t>(lost)] && lost_[static_cast<size_t>(lost)].ok()) {
      note_lost_locked(lost, why);
      noted = true;
    }
    tell = lost_notice_links_locked(lost, from);
  }
  send_lost_notice(tell, lost, Status(NEXAR_ERR_PEER_LOST, text));
  if (noted)
    if (ControlHandler* h = control_.load(std::memory_order_acquire)) h->on_lost(lost);
}

void Engine::note_lost_locked(int src, const Status& why) {
  lost_[static_cast<size_t>(src)] = why;
  NX_WARN(P2P, "rank %d lost: %s", src, why.to_string().c_str());
  // A thread asleep in a wait that no request stands for (a shared-slot collective)
  // re-checks its peers now.
  abort_epoch_.fetch_add(1, std::memory_order_acq_rel);
  waiter_.ring();
  abandon_relayed_locked(src, why);
  for (auto& [id, c] : contexts_) {
    fail_relayed_posted_locked(c, src);
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
  transport::PeerLink* link = nullptr;
  int hop = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!unreachable_locked(dst, true).ok()) return;
    hop = route_locked(dst);
    if (hop >= 0) link = links_[static_cast<size_t>(hop)];
  }
  if (!link) return;
  const auto* p = static_cast<const uint8_t*>(data);
  if (hop == dst) {
    link->send(new detail::OwnedSend(std::vector<uint8_t>(p, p + bytes), kControlContext));
    return;
  }
  send_relayed(dst, hop, MsgHeader{kControlContext, 0, bytes, 0}, p, nullptr);
}

bool Engine::is_lost(int r) {
  std::lock_guard<std::mutex> lock(mu_);
  return !lost_[static_cast<size_t>(r)].ok();
}

}  // namespace nexar::p2p
