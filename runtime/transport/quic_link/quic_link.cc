// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// QuicLink lifecycle: dialing or adopting a connection, the HELLO exchange, and what
// happens when the connection goes away.
#include "transport/quic_link/quic_link.h"

#include "core/log.h"
#include "core/remote_status.h"
#include "core/params.h"

namespace nexar::quic_link {

QuicLink::QuicLink(int self_rank, int world_size, int peer, transport::InboundSink* sink, quic::Endpoint* endpoint)
    : self_rank_(self_rank),
      world_size_(world_size),
      peer_(peer),
      eager_limit_(static_cast<uint64_t>(param::NEXAR_EAGER_LIMIT.get())),
      sink_(sink),
      endpoint_(endpoint) {
  std::vector<uint8_t> hello;
  encode_hello(&hello, self_rank_, world_size_);
  ctrl_tx_.append(std::move(hello));  // always the first frame each way
}

QuicLink::~QuicLink() {
  for (LargeTx* t : large_waiting_) delete t;
  for (LargeTx* t : large_active_) delete t;
}

Status QuicLink::dial(const std::string& address) {
  return endpoint_->connect(address, kAlpn, quic::ExpectedPeer{peer_}, this);
}

bool QuicLink::adopt(quic::Connection& conn) {
  if (conn_ != nullptr) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dead_.ok()) return false;
  }
  conn_ = &conn;
  conn.set_app(this);
  started_.store(true, std::memory_order_release);
  return true;
}

void QuicLink::on_connected(quic::Connection& conn) {
  conn_ = &conn;
  if (conn.is_server()) return;  // the client opens the control stream
  Status st = conn.open_bidi_stream(&ctrl_sid_);
  if (!st.ok()) {
    conn.close(1, "cannot open the control stream: " + st.message());
    return;
  }
  conn.schedule_write();
}

Status QuicLink::wait_ready(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, deadline, [&] { return ready_ || !dead_.ok(); }))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d did not connect in time", peer_));
  return dead_.ok() ? Status::Ok() : dead_;
}

void QuicLink::send_bye() {
  std::vector<uint8_t> frame;
  encode_bye(&frame);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dead_.ok()) return;
    ctrl_tx_.append(std::move(frame));
  }
  request_write();
}

Status QuicLink::wait_goodbye(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  // Once the peer said BYE it closes only after our BYE reached it: a close then is fine.
  auto done = [&] { return bye_received_ ? (!dead_.ok() || delivered_locked()) : !dead_.ok(); };
  if (!cv_.wait_until(lock, deadline, done))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d did not finish its goodbye in time", peer_));
  return bye_received_ ? Status::Ok() : dead_;
}

Status QuicLink::wait_delivered(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, deadline, [&] { return !dead_.ok() || delivered_locked(); }))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d did not acknowledge the last messages in time", peer_));
  return Status::Ok();
}

void QuicLink::close() {
  endpoint_->post([this] {
    if (conn_) conn_->close(0, "communicator destroyed");
  });
}

void QuicLink::peer_gone(const Status& why) {
  endpoint_->post([this, why] {
    if (conn_) return conn_->abort(why);
    if (!lazy_) return;
    // Lazy, no connection: a first use under way fails now; an unused link remembers, and
    // fails its first use (a peer that ended after its goodbyes to others is no loss to
    // a rank that never talked to it).
    if (started_.load(std::memory_order_acquire)) return fail_unconnected(why);
    std::lock_guard<std::mutex> lock(mu_);
    gone_ = why;
  });
}

Status QuicLink::handle_frame(const Frame& f) {
  if (!hello_received_) {
    if (f.type != FrameType::HELLO) return Status(NEXAR_ERR_PROTOCOL, "first frame is not HELLO");
    if (f.rank != peer_)
      return Status(NEXAR_ERR_AUTH, strprintf("peer holding the certificate of rank %d claims to be rank %d", peer_,
                                              f.rank));
    if (f.world_size != world_size_)
      return Status(NEXAR_ERR_PROTOCOL,
                    strprintf("rank %d has world size %d, this rank %d", peer_, f.world_size, world_size_));
    hello_received_ = true;
    NX_INFO(NET, "connected to rank %d at %s over QUIC", peer_, conn_->peer_address().c_str());
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_ = true;
    }
    cv_.notify_all();
    release_knock();  // the peer knocked for this connection: it is up
    // Large messages queued before the connection (NEXAR_CONNECT=lazy) get their streams.
    start_large_streams();
    conn_->schedule_write();
    return Status::Ok();
  }
  switch (f.type) {
    case FrameType::HELLO:
      return Status(NEXAR_ERR_PROTOCOL, "second HELLO");
    case FrameType::MSG:
      return Status::Ok();  // delivered by on_control_data (needs the credit decision)
    case FrameType::LARGE: {
      if (f.seq != next_rx_seq_)
        return Status(NEXAR_ERR_PROTOCOL, strprintf("large message seq %llu, expected %llu",
                                                    static_cast<unsigned long long>(f.seq),
                                                    static_cast<unsigned long long>(next_rx_seq_)));
      ++next_rx_seq_;
      transport::InboundMsg* msg = sink_->on_message_begin(peer_, f.hdr);
      // Its stream may already be here, holding early bytes.
      for (auto& [sid, rx] : large_rx_) {
        if (rx.seq_known && rx.seq == f.seq && !rx.msg) {
          rx.msg = msg;
          rx.remaining = f.hdr.len;
          std::vector<uint8_t> early = std::move(rx.early);
          if (early.size() > rx.remaining)
            return Status(NEXAR_ERR_PROTOCOL, "large message stream carries more than its length");
          if (!early.empty()) deliver_large(rx, sid, early.data(), early.size());
          if (rx.remaining == 0) {
            const int64_t done = sid;  // sid is the map entry's own key: gone with the erase
            large_rx_.erase(done);
            finish_stream(done);
          }
          return Status::Ok();
        }
      }
      announced_[f.seq] = Announced{msg, f.hdr.len};
      return Status::Ok();
    }
    case FrameType::BYE:
      {
        std::lock_guard<std::mutex> lock(mu_);
        bye_received_ = true;
      }
      cv_.notify_all();
      return Status::Ok();
    case FrameType::ABORT:
      sink_->on_remote_abort(peer_, f.hdr.ctx, remote_failure(f.code, f.text));
      return Status::Ok();
  }
  return Status(NEXAR_ERR_PROTOCOL, "unknown frame");
}

void QuicLink::fail_everything(const Status& why, bool tell_sink) {
  std::deque<LargeTx*> waiting;
  std::deque<std::pair<uint64_t, transport::SendOp*>> untaken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dead_ = why;
    waiting.swap(large_waiting_);
    untaken.swap(taken_waiting_);
  }
  cv_.notify_all();
  for (auto& [end, op] : untaken) op->complete(why);
  for (LargeTx* t : waiting) {
    t->op->complete(why);
    delete t;
  }
  for (LargeTx* t : large_active_) {
    t->op->complete(why);
    delete t;
  }
  large_active_.clear();
  for (auto& [sid, rx] : large_rx_)
    if (rx.msg) sink_->on_message_abandon(rx.msg, why);
  large_rx_.clear();
  for (auto& [seq, a] : announced_) sink_->on_message_abandon(a.msg, why);
  announced_.clear();
  if (tell_sink) sink_->on_peer_lost(peer_, why);
}

void QuicLink::on_closed(quic::Connection&, const Status& why) {
  Status s = why.ok() ? Status(NEXAR_ERR_PEER_LOST, strprintf("connection to rank %d closed", peer_))
                      : Status(why.code() == NEXAR_ERR_AUTH ? NEXAR_ERR_AUTH : NEXAR_ERR_PEER_LOST,
                               strprintf("rank %d: %s", peer_, why.message().c_str()));
  NX_INFO(NET, "connection to rank %d closed: %s", peer_, s.to_string().c_str());
  conn_ = nullptr;
  release_knock();
  bool graceful;
  {
    std::lock_guard<std::mutex> lock(mu_);
    graceful = bye_received_;
  }
  fail_everything(s, /*tell_sink=*/!graceful);
}

}  // namespace nexar::quic_link
