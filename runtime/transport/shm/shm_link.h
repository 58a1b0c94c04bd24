// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A PeerLink to a rank on the same host, over two rings (ring.h): ours in the peer's
// inbox, the peer's in ours. Messages up to the eager limit are copied into the ring and
// out of it; larger ones are announced (RTS) and move once their receive is posted: read
// by the receiver straight from the sender's buffer (CMA: one copy), or, where CMA is not
// permitted, copied through the ring in pieces (pipelined: the receiver drains while the
// sender fills). records.h has the protocol.
//
// Threads: send/cancel/resume/send_abort from any thread (the send side is under tx_mu_);
// poll() and fail() only from the hub's poller, one thread at a time (the receive side).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "transport/shm/inbox.h"
#include "transport/placement_sink.h"
#include "transport/shm/records.h"
#include "transport/shm/ring.h"
#include "transport/transport.h"

namespace nexar::shm {

// Sends whose payload left their buffer, completed once the send lock is released: usually
// one, held in place (a send costs no allocation).
class DoneList {
 public:
  void push_back(transport::SendOp* op) {
    if (n_ < kInline)
      inline_[n_++] = op;
    else
      more_.push_back(op);
  }
  void complete_all() {
    for (size_t i = 0; i < n_; ++i) inline_[i]->complete(Status::Ok());
    for (transport::SendOp* op : more_) op->complete(Status::Ok());
  }

 private:
  static constexpr size_t kInline = 4;
  transport::SendOp* inline_[kInline] = {};
  size_t n_ = 0;
  std::vector<transport::SendOp*> more_;
};

struct LinkConfig {
  int self_rank = -1;
  int peer = -1;
  pid_t peer_pid = 0;
  transport::PlacementSink* sink = nullptr;
  InboxView mine;         // our inbox: we read slot rx_slot
  uint32_t rx_slot = 0;
  InboxView theirs;       // the peer's inbox: we write slot tx_slot
  uint32_t tx_slot = 0;
  bool cma = false;       // we may read the peer's memory (else large payloads come as DATA)
  size_t eager_limit = 16384;
  size_t chunk = 65536;   // DATA pieces (no CMA), and CMA reads
};

class ShmLink final : public transport::PeerLink {
 public:
  explicit ShmLink(const LinkConfig& cfg);
  ~ShmLink() override;

  int peer() const { return cfg_.peer; }
  bool cma() const { return cfg_.cma; }

  // transport::PeerLink
  void send(transport::SendOp* op) override;
  void resume() override;
  void send_abort(uint32_t ctx, const Status& why) override;
  void cancel(transport::SendOp* op, const Status& why) override;

  // Poller side (one thread at a time): receives, places large payloads, pushes queued
  // sends. True if anything moved.
  bool poll();
  // The peer is gone (or broke the protocol): everything pending fails; the sink hears
  // on_peer_lost unless the peer had said goodbye.
  void fail(const Status& why, bool notify_lost = true);
  bool dead() const { return dead_flag_.load(std::memory_order_acquire); }

  // Goodbye: BYE queued after everything sent so far.
  void send_bye();
  // The peer said BYE and everything we sent is out of our hands (consumed or read).
  bool goodbye_done();
  bool bye_received() const { return bye_received_.load(std::memory_order_acquire); }

 private:
  // A send waiting for ring space (in order).
  struct TxItem {
    enum Kind { MSG, RTS, STREAM, BYTES } kind;
    transport::SendOp* op = nullptr;  // null once cancelled (a STREAM then sends zeros)
    uint64_t seq = 0;                 // RTS, STREAM
    uint64_t off = 0;                 // STREAM: payload bytes pushed
    uint16_t type = 0;                // BYTES: record type and payload
    std::vector<uint8_t> bytes;
    transport::MsgHeader hdr;
  };

  // Send side, tx_mu_ held. Pushes what fits; completes nothing itself but collects ops
  // whose payload left their buffer into *done.
  bool push_locked(TxItem& item, DoneList* done);
  void drain_queue_locked(DoneList* done);
  void enqueue_locked(TxItem item, DoneList* done);
  void push_control(uint16_t type, const void* data, size_t n);
  void notify_peer();  // rings the peer's waiting threads (if any sleep)
  // Rings the peer's background thread: our ring in its inbox is full (drain it), or we
  // made room in its ring in ours (push what you queued).
  void wake_peer_bg();

  // Receive side (poller).
  bool handle(const RecHdr* rec, bool* hold);
  void place_pending();
  void on_cts(uint64_t seq, uint64_t len);
  Status protocol_error(const char* what);

  const LinkConfig cfg_;
  transport::PlacementSink* const sink_;

  std::mutex tx_mu_;
  RingWriter tx_;
  std::deque<TxItem> queue_;
  std::atomic<size_t> queued_{0};
  std::unordered_map<uint64_t, transport::SendOp*> awaiting_ack_;  // RTS sent, not yet read
  uint64_t next_seq_ = 0;
  Status dead_;
  std::atomic<bool> dead_flag_{false};

  // Poller only.
  RingReader rx_;
  bool held_ = false;  // the sink is over its limit: stop reading until resume()
  struct Incoming {  // a large payload arriving as DATA into its receive buffer
    transport::InboundMsg* msg;
    uint64_t len, got;
  };
  std::unordered_map<uint64_t, Incoming> incoming_;
  struct PendingRts {
    transport::InboundMsg* msg;
    uint64_t seq, addr, len;
  };
  std::deque<PendingRts> pending_;
  bool pending_new_ = false;
  uint64_t seen_gen_ = 0;
  std::atomic<bool> resume_{false};
  std::atomic<bool> bye_received_{false};
};

}  // namespace nexar::shm
