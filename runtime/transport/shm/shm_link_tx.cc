// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// ShmLink send side: records into our ring in the peer's inbox, in order; what does not
// fit waits in queue_ until the peer drains (it then rings our background thread).
#include <algorithm>
#include <cstring>

#include "core/log.h"
#include "transport/shm/shm_link.h"

namespace nexar::shm {

ShmLink::ShmLink(const LinkConfig& cfg)
    : cfg_(cfg),
      sink_(cfg.sink),
      tx_(cfg.theirs.slot(cfg.tx_slot), cfg.theirs.ring(cfg.tx_slot), cfg.theirs.hdr()->ring_bytes),
      rx_(cfg.mine.slot(cfg.rx_slot), cfg.mine.ring(cfg.rx_slot), cfg.mine.hdr()->ring_bytes) {}

ShmLink::~ShmLink() { fail(Status(NEXAR_ERR_ABORTED, "shared-memory link closed"), /*notify_lost=*/false); }

void ShmLink::notify_peer() { transport::ring(&cfg_.theirs.hdr()->user); }
void ShmLink::wake_peer_bg() { transport::ring(&cfg_.theirs.hdr()->bg); }

void ShmLink::send(transport::SendOp* op) {
  DoneList done;
  Status failed;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (!dead_.ok()) {
      failed = dead_;
    } else {
      TxItem it{};
      it.op = op;
      it.hdr = op->hdr;
      if (op->hdr.len <= cfg_.eager_limit) {
        it.kind = TxItem::MSG;
      } else {  // completes on its ACK, or once its DATA went out after a CTS
        it.kind = TxItem::RTS;
        it.seq = next_seq_++;
        awaiting_ack_[it.seq] = op;
      }
      enqueue_locked(std::move(it), &done);
    }
  }
  if (!failed.ok()) op->complete(failed);
  done.complete_all();
}

void ShmLink::push_control(uint16_t type, const void* data, size_t n) {
  DoneList done;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (!dead_.ok()) return;
    TxItem it{};
    it.kind = TxItem::BYTES;
    it.type = type;
    it.bytes.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + n);
    enqueue_locked(std::move(it), &done);
  }
  done.complete_all();
}

void ShmLink::send_abort(uint32_t ctx, const Status& why) {
  std::vector<uint8_t> rec(sizeof(AbortRec));
  AbortRec a{ctx, static_cast<int32_t>(why.code())};
  std::memcpy(rec.data(), &a, sizeof(a));
  const std::string& text = why.message();
  rec.insert(rec.end(), text.begin(), text.begin() + static_cast<ptrdiff_t>(std::min(text.size(), kMaxAbortText)));
  push_control(kRecAbort, rec.data(), rec.size());
}

void ShmLink::send_bye() { push_control(kRecBye, nullptr, 0); }

bool ShmLink::goodbye_done() {
  // Our BYE is in the peer's ring once the queue is empty; its BYE came after everything
  // it will ever read of ours. (A large send it never received stays incomplete, as the
  // caller should have waited for it.)
  if (!bye_received()) return dead();
  std::lock_guard<std::mutex> lock(tx_mu_);
  return !dead_.ok() || queue_.empty();
}

void ShmLink::enqueue_locked(TxItem item, DoneList* done) {
  if (queue_.empty()) {
    const bool all = push_locked(item, done);
    if (all) {
      tx_.commit();
      notify_peer();
      return;
    }
  }
  queue_.push_back(std::move(item));
  queued_.store(queue_.size(), std::memory_order_relaxed);
  drain_queue_locked(done);
}

void ShmLink::drain_queue_locked(DoneList* done) {
  bool pushed = false;
  for (int attempt = 0; attempt < 2 && !queue_.empty(); ++attempt) {
    while (!queue_.empty()) {
      const bool all = push_locked(queue_.front(), done);
      pushed = true;  // possibly part of a stream
      if (!all) break;
      queue_.pop_front();
    }
    if (queue_.empty()) break;
    // Full: the consumer rings our background thread once it makes room. Re-check after
    // raising the flag in case it drained meanwhile.
    if (!tx_.want_space(std::min<size_t>(cfg_.chunk, tx_.max_payload()))) {
      wake_peer_bg();
      break;
    }
  }
  queued_.store(queue_.size(), std::memory_order_relaxed);
  if (pushed) {
    tx_.commit();
    notify_peer();
  }
}

bool ShmLink::push_locked(TxItem& it, DoneList* done) {
  switch (it.kind) {
    case TxItem::MSG: {
      uint8_t* p = tx_.reserve(kRecMsg, sizeof(WireHeader) + it.hdr.len);
      if (!p) return false;
      WireHeader w = to_wire(it.hdr);
      std::memcpy(p, &w, sizeof(w));
      if (it.hdr.len) std::memcpy(p + sizeof(w), it.op->data, it.hdr.len);
      done->push_back(it.op);
      return true;
    }
    case TxItem::RTS: {
      uint8_t* p = tx_.reserve(kRecRts, sizeof(RtsRec));
      if (!p) return false;
      RtsRec r{to_wire(it.hdr), it.seq, reinterpret_cast<uint64_t>(it.op->data)};
      std::memcpy(p, &r, sizeof(r));
      return true;  // completes on its ACK
    }
    case TxItem::STREAM: {
      const size_t piece_max = std::min(cfg_.chunk, tx_.max_payload() - sizeof(SeqRec));
      while (it.off < it.hdr.len) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(piece_max, it.hdr.len - it.off));
        uint8_t* p = tx_.reserve(kRecData, sizeof(SeqRec) + n);
        if (!p) return false;
        SeqRec h{it.seq};
        std::memcpy(p, &h, sizeof(h));
        if (it.op)
          std::memcpy(p + sizeof(h), it.op->data + it.off, n);
        else
          std::memset(p + sizeof(h), 0, n);  // cancelled: the receiver still expects len bytes
        it.off += n;
      }
      if (it.op) {
        awaiting_ack_.erase(it.seq);
        done->push_back(it.op);
      }
      return true;
    }
    case TxItem::BYTES: {
      uint8_t* p = tx_.reserve(it.type, it.bytes.size());
      if (!p) return false;
      if (!it.bytes.empty()) std::memcpy(p, it.bytes.data(), it.bytes.size());
      return true;
    }
  }
  return false;
}

void ShmLink::cancel(transport::SendOp* op, const Status&) {
  std::lock_guard<std::mutex> lock(tx_mu_);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->op != op) continue;
    if (it->kind == TxItem::STREAM) {
      it->op = nullptr;  // the receiver was promised the payload: the rest goes as zeros
    } else {
      queue_.erase(it);
      queued_.store(queue_.size(), std::memory_order_relaxed);
    }
    break;
  }
  // An RTS already read or being read: the receiver got (or gets) the data; one not yet
  // read will read a buffer the caller may reuse (see docs/shm.md, cancellation); a CTS
  // that comes later finds no op and is answered with zeros.
  for (auto it = awaiting_ack_.begin(); it != awaiting_ack_.end(); ++it) {
    if (it->second == op) {
      awaiting_ack_.erase(it);
      break;
    }
  }
}

void ShmLink::on_cts(uint64_t seq, uint64_t len) {
  DoneList done;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (!dead_.ok()) return;
    TxItem it{};
    it.kind = TxItem::STREAM;
    it.seq = seq;
    auto found = awaiting_ack_.find(seq);
    if (found != awaiting_ack_.end()) it.op = found->second;
    it.hdr.len = len;
    enqueue_locked(std::move(it), &done);
  }
  done.complete_all();
}

void ShmLink::resume() {
  resume_.store(true, std::memory_order_release);
  transport::ring(&cfg_.mine.hdr()->bg);
  transport::ring(&cfg_.mine.hdr()->user);
}

}  // namespace nexar::shm
