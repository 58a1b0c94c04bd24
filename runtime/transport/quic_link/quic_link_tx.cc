// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// QuicLink send side. User threads queue frames and large messages under mu_, then the
// sender itself (Endpoint::try_run) or the progress thread hands bytes to QUIC (next_write
// / on_written); a large send completes only when the peer acknowledged all of it (QUIC
// may retransmit until then).
#include <cstring>

#include "core/log.h"
#include "transport/quic_link/quic_link.h"

namespace nexar::quic_link {
namespace {
constexpr size_t kMaxActiveLarge = 4;  // large messages in flight per peer, each on its stream
}

void QuicLink::send(transport::SendOp* op) {
  if (lazy_) start_connecting();
  const bool inline_msg = op->hdr.len <= eager_limit_;
  std::vector<uint8_t> frame;
  if (inline_msg) encode_msg(&frame, op->hdr, op->data);
  std::unique_lock<std::mutex> lock(mu_);
  if (!dead_.ok()) {
    Status why = dead_;
    lock.unlock();
    op->complete(why);
    return;
  }
  if (inline_msg) {
    // Read before unlocking: once queued, a write on any thread may take, complete and
    // free an op that completes when taken.
    const bool when_taken = op->complete_when_taken;
    ctrl_tx_.append(std::move(frame));
    if (when_taken) taken_waiting_.emplace_back(ctrl_tx_.appended(), op);
    lock.unlock();
    request_write();
    if (!when_taken) op->complete(Status::Ok());  // the payload was copied
    return;
  }
  auto* t = new LargeTx{op, next_tx_seq_++, {}};
  std::memcpy(t->seq_bytes, &t->seq, sizeof(t->seq));
  encode_large(&frame, op->hdr, t->seq);
  ctrl_tx_.append(std::move(frame));
  large_waiting_.push_back(t);
  ++large_unacked_;
  lock.unlock();
  request_write();
}

void QuicLink::send_abort(uint32_t ctx, const Status& why) {
  std::vector<uint8_t> frame;
  encode_abort(&frame, ctx, why.code(), why.message());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dead_.ok()) return;
    ctrl_tx_.append(std::move(frame));
  }
  request_write();
}

// The calling thread writes the packets itself when the endpoint is free: waking the
// progress thread for every message cost a thread hand-off (tens of microseconds).
void QuicLink::request_write() {
  if (endpoint_->try_run([](void* self) { static_cast<QuicLink*>(self)->write_now(); }, this)) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (write_posted_) return;  // the posted write_now will see what was just queued
    write_posted_ = true;
  }
  endpoint_->post([this] {
    {
      std::lock_guard<std::mutex> lock(mu_);
      write_posted_ = false;
    }
    write_now();
  });
}

void QuicLink::write_now() {
  start_large_streams();
  if (conn_) conn_->schedule_write();
}

void QuicLink::forget_large(transport::SendOp* op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = large_waiting_.begin(); it != large_waiting_.end(); ++it) {
      if ((*it)->op == op) {
        delete *it;
        large_waiting_.erase(it);
        --large_unacked_;
        return;
      }
    }
  }
  for (auto it = large_active_.begin(); it != large_active_.end(); ++it) {
    if ((*it)->op == op) {
      if (conn_) conn_->shutdown_stream((*it)->sid, 2);  // QUIC drops what it kept to resend
      {
        std::lock_guard<std::mutex> lock(mu_);
        --large_unacked_;
      }
      delete *it;
      large_active_.erase(it);
      return;
    }
  }
}

void QuicLink::cancel(transport::SendOp* op, const Status&) {
  // QUIC reads op->data until the stream is reset, under the endpoint's lock: cancel
  // returns only once that happened here, or the connection is gone (nothing reads it).
  struct Call {
    QuicLink* link;
    transport::SendOp* op;
  } call{this, op};
  if (endpoint_->try_run([](void* c) { static_cast<Call*>(c)->link->forget_large(static_cast<Call*>(c)->op); },
                         &call))
    return;
  auto done = std::make_shared<bool>(false);  // under mu_
  endpoint_->post([this, op, done] {
    forget_large(op);
    {
      std::lock_guard<std::mutex> lock(mu_);
      *done = true;
    }
    cv_.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu_);
  // The progress thread runs posted work within milliseconds; a warning every 5 s says
  // if it does not, but returning earlier would leave QUIC reading a buffer its owner reuses.
  while (!cv_.wait_for(lock, std::chrono::seconds(5), [&] { return *done || !dead_.ok(); }))
    NX_WARN(NET, "cancelling a send to rank %d waits for the progress thread (over 5 s)", peer_);
}

void QuicLink::start_large_streams() {
  if (!conn_ || !hello_received_) return;
  while (large_active_.size() < kMaxActiveLarge) {
    LargeTx* t;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (large_waiting_.empty()) return;
      t = large_waiting_.front();
      large_waiting_.pop_front();
    }
    // Bidirectional, though data flows one way: ngtcp2 0.12 never closes a peer's
    // unidirectional stream (it waits for a FIN it can never send), so stream credit would
    // run out; on a bidirectional stream the receiver finishes its side when done reading.
    Status st = conn_->open_bidi_stream(&t->sid);
    if (!st.ok()) {  // no stream credit yet: on_streams_available retries
      std::lock_guard<std::mutex> lock(mu_);
      large_waiting_.push_front(t);
      return;
    }
    large_active_.push_back(t);
  }
}

size_t QuicLink::next_write(quic::Connection&, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) {
  *fin = false;
  if (!fin_owed_.empty()) {
    *sid = fin_owed_.front();
    *fin = true;
    return 0;
  }
  if (ctrl_sid_ >= 0 && !ctrl_blocked_) {
    std::lock_guard<std::mutex> lock(mu_);
    if (size_t n = ctrl_tx_.peek(vecs, max_vecs)) {
      *sid = ctrl_sid_;
      return n;
    }
  }
  for (LargeTx* t : large_active_) {
    if (t->blocked || t->fin_written) continue;
    size_t n = 0;
    uint64_t off = t->written;
    if (off < 8) {
      vecs[n++] = {t->seq_bytes + off, static_cast<size_t>(8 - off)};
      off = 8;
    }
    if (off < t->total() && n < max_vecs) {
      vecs[n++] = {const_cast<uint8_t*>(t->op->data) + (off - 8), static_cast<size_t>(t->total() - off)};
    }
    *sid = t->sid;
    *fin = true;
    return n;
  }
  return 0;
}

void QuicLink::on_written(quic::Connection&, int64_t sid, size_t n, bool fin_taken) {
  if (!fin_owed_.empty() && sid == fin_owed_.front() && n == 0) {
    if (fin_taken) fin_owed_.pop_front();
    return;
  }
  if (sid == ctrl_sid_) {
    std::vector<transport::SendOp*> taken;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ctrl_tx_.mark_written(n);
      while (!taken_waiting_.empty() && taken_waiting_.front().first <= ctrl_tx_.written()) {
        taken.push_back(taken_waiting_.front().second);
        taken_waiting_.pop_front();
      }
    }
    for (transport::SendOp* op : taken) op->complete(Status::Ok());
    return;
  }
  for (LargeTx* t : large_active_) {
    if (t->sid == sid) {
      t->written += n;
      if (fin_taken) t->fin_written = true;
      return;
    }
  }
}

void QuicLink::on_acked(quic::Connection&, int64_t sid, uint64_t datalen) {
  if (sid == ctrl_sid_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ctrl_tx_.mark_acked(datalen);
    }
    cv_.notify_all();
    return;
  }
  for (auto it = large_active_.begin(); it != large_active_.end(); ++it) {
    LargeTx* t = *it;
    if (t->sid != sid) continue;
    t->acked += datalen;
    if (t->acked >= t->total()) {
      large_active_.erase(it);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --large_unacked_;
      }
      cv_.notify_all();
      t->op->complete(Status::Ok());
      delete t;
      start_large_streams();
      if (conn_) conn_->schedule_write();
    }
    return;
  }
}

void QuicLink::on_blocked(quic::Connection&, int64_t sid) {
  if (sid == ctrl_sid_) {
    ctrl_blocked_ = true;
    return;
  }
  for (LargeTx* t : large_active_)
    if (t->sid == sid) t->blocked = true;
}

void QuicLink::on_stream_writable(quic::Connection& conn, int64_t sid) {
  if (sid == ctrl_sid_) ctrl_blocked_ = false;
  for (LargeTx* t : large_active_)
    if (t->sid == sid) t->blocked = false;
  conn.schedule_write();
}

void QuicLink::on_streams_available(quic::Connection& conn) {
  start_large_streams();
  conn.schedule_write();
}

}  // namespace nexar::quic_link
