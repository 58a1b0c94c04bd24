// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// ShmLink receive side (the hub's poller, one thread at a time): records from the peer's
// ring in order, large payloads read from the peer once their receive is posted, and the
// queued sends pushed as room appears.
#include <cstring>

#include "core/log.h"
#include "core/remote_status.h"
#include "transport/shm/cma.h"
#include "transport/shm/shm_link.h"

namespace nexar::shm {
namespace {
constexpr int kMaxRecordsPerPoll = 64;  // then let the other links have their turn
constexpr size_t kCmaPiece = 8u << 20;
}  // namespace

bool ShmLink::poll() {
  bool moved = false;
  if (resume_.load(std::memory_order_relaxed) && resume_.exchange(false, std::memory_order_acq_rel)) held_ = false;
  for (int n = 0; !held_ && n < kMaxRecordsPerPoll; ++n) {
    bool bad;
    const RecHdr* rec = rx_.peek(&bad);
    if (bad) {
      fail(protocol_error("a malformed record header"));
      return true;
    }
    if (!rec) break;
    bool hold = false;
    if (!handle(rec, &hold)) return true;  // the link failed
    if (rx_.consume()) wake_peer_bg();
    held_ = hold;
    moved = true;
  }
  if (!pending_.empty() && (pending_new_ || sink_->bind_generation() != seen_gen_)) {
    place_pending();
    moved = true;
  }
  if (queued_.load(std::memory_order_relaxed) != 0) {
    DoneList done;
    {
      std::lock_guard<std::mutex> lock(tx_mu_);
      if (dead_.ok()) drain_queue_locked(&done);
    }
    done.complete_all();
    moved = true;
  }
  return moved;
}

Status ShmLink::protocol_error(const char* what) {
  return Status(NEXAR_ERR_PROTOCOL, strprintf("rank %d sent %s over shared memory", cfg_.peer, what));
}

bool ShmLink::handle(const RecHdr* rec, bool* hold) {
  const size_t n = rec->size - sizeof(RecHdr);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(rec + 1);
  switch (rec->type) {
    case kRecMsg: {
      WireHeader w;
      if (n < sizeof(w)) break;
      std::memcpy(&w, p, sizeof(w));
      if (w.len != n - sizeof(w)) break;
      *hold = !sink_->on_message(cfg_.peer, from_wire(w), p + sizeof(w));
      return true;
    }
    case kRecRts: {
      RtsRec r;
      if (n != sizeof(r)) break;
      std::memcpy(&r, p, sizeof(r));
      if (r.hdr.len == 0) break;
      transport::InboundMsg* msg = sink_->on_message_begin(cfg_.peer, from_wire(r.hdr));
      pending_.push_back(PendingRts{msg, r.seq, r.addr, r.hdr.len});
      pending_new_ = true;
      return true;
    }
    case kRecCts: {
      CtsRec c;
      if (n != sizeof(c)) break;
      std::memcpy(&c, p, sizeof(c));
      if (c.len == 0) break;
      on_cts(c.seq, c.len);
      return true;
    }
    case kRecData: {
      SeqRec h;
      if (n <= sizeof(h)) break;
      std::memcpy(&h, p, sizeof(h));
      auto it = incoming_.find(h.seq);
      const size_t piece = n - sizeof(h);
      if (it == incoming_.end() || piece > it->second.len - it->second.got) break;
      Incoming& in = it->second;
      // Claimed per piece, so a receive cancelled meanwhile is never written after.
      uint8_t* dst = nullptr;
      const bool bound = sink_->claim_placement(in.msg, &dst) == transport::Placement::BOUND;
      if (bound) std::memcpy(dst + in.got, p + sizeof(h), piece);
      in.got += piece;
      if (in.got == in.len) {
        sink_->finish_placement(in.msg, Status::Ok());
        incoming_.erase(it);
      } else if (bound) {
        sink_->release_placement(in.msg);
      }
      return true;
    }
    case kRecAck: {
      AckRec a;
      if (n != sizeof(a)) break;
      std::memcpy(&a, p, sizeof(a));
      transport::SendOp* op = nullptr;
      {
        std::lock_guard<std::mutex> lock(tx_mu_);
        auto it = awaiting_ack_.find(a.seq);
        if (it != awaiting_ack_.end()) {
          op = it->second;
          awaiting_ack_.erase(it);
        }
      }
      if (op)
        op->complete(a.code == NEXAR_SUCCESS
                         ? Status::Ok()
                         : remote_failure(a.code,
                                  strprintf("rank %d could not read the message from this rank's memory", cfg_.peer)));
      return true;
    }
    case kRecAbort: {
      AbortRec a;
      if (n < sizeof(a) || n - sizeof(a) > kMaxAbortText) break;
      std::memcpy(&a, p, sizeof(a));
      std::string text(reinterpret_cast<const char*>(p + sizeof(a)), n - sizeof(a));
      sink_->on_remote_abort(cfg_.peer, a.ctx, remote_failure(a.code, text));
      return true;
    }
    case kRecBye:
      if (n != 0) break;
      bye_received_.store(true, std::memory_order_release);
      return true;
    default:
      break;
  }
  fail(protocol_error(strprintf("a malformed record (type %u, %zu bytes)", rec->type, n).c_str()));
  return false;
}

void ShmLink::place_pending() {
  pending_new_ = false;
  seen_gen_ = sink_->bind_generation();  // before claiming: a later bind is seen next time
  for (auto it = pending_.begin(); it != pending_.end();) {
    uint8_t* dst = nullptr;
    const transport::Placement pl = sink_->claim_placement(it->msg, &dst);
    if (pl == transport::Placement::PENDING) {
      ++it;
      continue;
    }
    Status st;
    if (pl == transport::Placement::BOUND && !cfg_.cma) {  // the sender copies it through the ring
      sink_->release_placement(it->msg);
      const uint64_t seq = it->seq;
      // A number already arriving: the first message would never be finished.
      if (!incoming_.try_emplace(seq, Incoming{it->msg, it->len, 0}).second) {
        sink_->finish_placement(it->msg, Status(NEXAR_ERR_PROTOCOL, "a repeated large-message number"));
        pending_.erase(it);
        fail(protocol_error(strprintf("large message %llu twice", static_cast<unsigned long long>(seq)).c_str()));
        return;
      }
      CtsRec c{seq, it->len};
      it = pending_.erase(it);
      push_control(kRecCts, &c, sizeof(c));
      continue;
    }
    if (pl == transport::Placement::BOUND) st = cma_read(cfg_.peer_pid, dst, it->addr, it->len, kCmaPiece);
    sink_->finish_placement(it->msg, st);
    AckRec a{it->seq, static_cast<int32_t>(st.code()), 0};
    it = pending_.erase(it);
    push_control(kRecAck, &a, sizeof(a));
    if (st.code() == NEXAR_ERR_PEER_LOST) {
      fail(Status(NEXAR_ERR_PEER_LOST, strprintf("rank %d: %s", cfg_.peer, st.message().c_str())));
      return;
    }
  }
}

void ShmLink::fail(const Status& why, bool notify_lost) {
  std::deque<TxItem> queue;
  std::unordered_map<uint64_t, transport::SendOp*> awaiting;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (!dead_.ok()) return;
    dead_ = why;
    dead_flag_.store(true, std::memory_order_release);
    queue.swap(queue_);
    awaiting.swap(awaiting_ack_);
    queued_.store(0, std::memory_order_relaxed);
  }
  // RTS and STREAM ops are in `awaiting` (a STREAM's until its last byte was pushed):
  // completed there, once.
  for (TxItem& it : queue)
    if (it.op && it.kind == TxItem::MSG) it.op->complete(why);
  for (auto& [seq, op] : awaiting) op->complete(why);
  for (auto& [seq, in] : incoming_) sink_->finish_placement(in.msg, why);
  incoming_.clear();
  for (PendingRts& p : pending_) sink_->finish_placement(p.msg, why);
  pending_.clear();
  if (notify_lost && !bye_received()) {
    NX_INFO(NET, "shared-memory link to rank %d failed: %s", cfg_.peer, why.to_string().c_str());
    sink_->on_peer_lost(cfg_.peer, why);
  }
}

}  // namespace nexar::shm
