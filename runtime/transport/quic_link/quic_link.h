// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A PeerLink over one QUIC connection: the nexar message protocol of wire.h. Sends come
// from user threads (queued under a mutex, then written by the sending thread itself when
// the endpoint is free, else by the progress thread); receives are parsed under the
// endpoint's lock (by the progress thread, or by a waiting thread in Endpoint::poll) and
// handed to the engine (InboundSink), with flow-control credit returned only as the
// engine accepts data (back-pressure).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "transport/quic/endpoint.h"
#include "transport/quic_link/byte_queue.h"
#include "transport/quic_link/knock.h"
#include "transport/quic_link/wire.h"
#include "transport/net_link.h"
#include "transport/transport.h"

namespace nexar::quic_link {

class QuicLink final : public transport::NetLink, public quic::Application {
 public:
  QuicLink(int self_rank, int world_size, int peer, transport::InboundSink* sink, quic::Endpoint* endpoint);
  ~QuicLink() override;

  int peer() const { return peer_; }
  // Client side: dial the peer. Thread-safe.
  Status dial(const std::string& address) override;
  // Server side (progress thread): adopt an accepted connection whose certificate names
  // this link's peer. False if the link already has one, or had one that ended: a peer
  // declared lost never comes back on this link (fail-stop).
  bool adopt(quic::Connection& conn);
  // Waits until both HELLOs were exchanged, or the connection failed, or deadline.
  Status wait_ready(std::chrono::steady_clock::time_point deadline) override;
  // Orderly goodbye: sends BYE, then waits until the peer acknowledged everything and
  // sent its own BYE (or deadline), so that closing loses nothing either way.
  void send_bye() override;
  Status wait_goodbye(std::chrono::steady_clock::time_point deadline) override;
  // Waits until the peer acknowledged everything sent so far (or the connection ended, or
  // deadline), without waiting for its BYE.
  Status wait_delivered(std::chrono::steady_clock::time_point deadline) override;
  // Closes the connection cleanly (progress thread work; returns at once).
  void close() override;
  // The peer is known gone (its process exited on this host): the connection ends at once,
  // without waiting for the idle timeout, and the sink hears on_peer_lost(why) unless the
  // peer had said goodbye. Thread-safe; returns at once.
  void peer_gone(const Status& why) override;

  // NEXAR_CONNECT=lazy (quic_link_lazy.cc): no connection until this rank sends to the
  // peer or waits for it (expect). Then a higher rank dials the peer; a lower rank knocks
  // (knock.h): the peer answers by dialing back, so connections always go from the higher
  // rank to the lower and two never cross. Call before the endpoint accepts connections;
  // set_address may come later (a first use before it dials or knocks once it comes).
  void connect_on_first_use();
  void set_address(const std::string& address);
  // The peer, a lower rank, knocked (progress thread): dial it back, and hold the knock's
  // connection open until ours is up or failed. nullptr refuses the knock.
  quic::Application* accept_knock(quic::Connection& conn);
  // A connection was dialed, knocked for or adopted (always true for an eager link).
  bool in_use() const override;
  void expect() override;

  // transport::PeerLink
  void send(transport::SendOp* op) override;
  void resume() override;
  void send_abort(uint32_t ctx, const Status& why) override;
  void cancel(transport::SendOp* op, const Status& why) override;

  // quic::Application
  void on_connected(quic::Connection& conn) override;
  Status on_stream_data(quic::Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) override;
  void on_stream_close(quic::Connection& conn, int64_t sid, uint64_t app_error) override;
  void on_acked(quic::Connection& conn, int64_t sid, uint64_t datalen) override;
  void on_stream_writable(quic::Connection& conn, int64_t sid) override;
  void on_streams_available(quic::Connection& conn) override;
  size_t next_write(quic::Connection& conn, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) override;
  void on_written(quic::Connection& conn, int64_t sid, size_t n, bool fin_taken) override;
  void on_blocked(quic::Connection& conn, int64_t sid) override;
  void on_closed(quic::Connection& conn, const Status& why) override;

 private:
  // A large message being sent on its own stream: seq (8 bytes) then the payload.
  struct LargeTx {
    transport::SendOp* op;
    uint64_t seq;
    uint8_t seq_bytes[8];
    int64_t sid = -1;
    uint64_t written = 0, acked = 0;
    bool blocked = false, fin_written = false;
    uint64_t total() const { return 8 + op->hdr.len; }
  };
  // A large message's payload arriving on a peer-opened stream.
  struct LargeRx {
    uint8_t seq_bytes[8];
    size_t seq_have = 0;
    bool seq_known = false;
    uint64_t seq = 0;
    transport::InboundMsg* msg = nullptr;  // set once its LARGE frame was matched
    uint64_t remaining = 0;
    std::vector<uint8_t> early;  // payload that came before its LARGE frame
  };

  // rx (under the endpoint's lock)
  Status on_control_data(const uint8_t* data, size_t len);
  Status handle_frame(const Frame& f);
  Status on_large_data(int64_t sid, const uint8_t* data, size_t len, bool fin);
  void deliver_large(LargeRx& rx, int64_t sid, const uint8_t* data, size_t n);
  void credit(int64_t sid, size_t n, bool sink_ok);
  // A large message was read whole: finish our side of its stream too, so that QUIC can
  // close the stream and give the peer its stream credit back.
  void finish_stream(int64_t sid);
  void resume_on_progress();
  // tx (under the endpoint's lock)
  void start_large_streams();
  // Gets queued frames written: on this thread if the endpoint is free, else posted. Call
  // without mu_ (the endpoint's lock comes before it).
  void request_write();
  void write_now();  // under the endpoint's lock
  // Drops op's large send (waiting, or its stream reset): under the endpoint's lock.
  void forget_large(transport::SendOp* op);
  void fail_everything(const Status& why, bool tell_sink);
  // lazy (quic_link_lazy.cc)
  void start_connecting();
  void connect_now(const std::string& address);  // dial or knock
  // Under the endpoint's lock: the link has no connection and never will (the dial or the
  // knock failed, the peer is gone): everything waiting on it fails with why.
  void fail_unconnected(const Status& why);
  friend class Knock;
  void on_knock_connected(quic::Connection& conn);
  void on_knock_closed(quic::Connection& conn, const Status& why);
  void release_knock();  // under the endpoint's lock

  const int self_rank_, world_size_, peer_;
  const uint64_t eager_limit_;  // larger messages get their own stream
  transport::InboundSink* const sink_;
  quic::Endpoint* const endpoint_;

  // Shared with user threads.
  std::mutex mu_;
  std::condition_variable cv_;
  ByteQueue ctrl_tx_;
  std::deque<LargeTx*> large_waiting_;
  uint64_t next_tx_seq_ = 0;
  size_t large_unacked_ = 0;  // large sends not yet fully acknowledged
  // Inline sends that complete once QUIC took them (SendOp::complete_when_taken), with the
  // control stream offset their frame ends at.
  std::deque<std::pair<uint64_t, transport::SendOp*>> taken_waiting_;
  // Everything sent so far (control frames, large messages) was acknowledged. Under mu_.
  bool delivered_locked() const { return ctrl_tx_.all_acked() && large_unacked_ == 0; }
  bool write_posted_ = false;
  bool ready_ = false;
  bool bye_received_ = false;
  Status dead_;  // set once the connection is gone

  // Under the endpoint's lock only (the progress thread, or a thread inside try_run/poll).
  quic::Connection* conn_ = nullptr;
  int64_t ctrl_sid_ = -1;
  bool ctrl_blocked_ = false;
  bool hello_received_ = false;
  std::vector<uint8_t> ctrl_rx_;  // a partial frame
  std::list<LargeTx*> large_active_;
  std::unordered_map<int64_t, LargeRx> large_rx_;
  struct Announced {
    transport::InboundMsg* msg;
    uint64_t len;
  };
  std::unordered_map<uint64_t, Announced> announced_;  // LARGE seen, its stream not yet
  uint64_t next_rx_seq_ = 0;
  std::vector<std::pair<int64_t, size_t>> owed_;  // credit held back by back-pressure
  std::deque<int64_t> fin_owed_;                   // streams whose side we still have to finish

  // NEXAR_CONNECT=lazy
  bool lazy_ = false;               // set before use
  std::string lazy_address_;        // under mu_
  bool dial_pending_ = false;       // under mu_: first use came before the address
  std::atomic<bool> started_{false};  // dialed, knocked for or adopted
  Status gone_;                     // under mu_: the peer exited before any connection
  Knock knock_{this};
  quic::Connection* knock_conn_ = nullptr;  // endpoint's lock: a peer's knock held open
};

}  // namespace nexar::quic_link
