// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A NetLink over one TCP connection, proven at connect (tcp_auth.h), carrying the nexar
// message protocol (quic_link/wire.h) on one byte stream: MSG frames inline, a LARGE
// frame followed at once by its payload, ABORT, BYE, and PING (keep-alive, one byte).
// Payload travels in the clear.
//
// Sending: the sending thread writes (writev, non-blocking, straight from the user's
// buffer) under tx_mu_; what the socket does not take waits in a queue the hub's thread
// writes on EPOLLOUT. A small message completes at once (the kernel took it, or the queue
// a copy); a large one completes when the kernel has taken all of it. Returned credit
// rides in front of the next frame written (push_credit_locked).
// Receiving: whoever polls (the hub's thread, or a waiting thread) drains the socket under
// rx_mu_ (try-lock; a poller that finds it taken leaves a flag the holder re-checks).
// A large payload whose receive is posted when its DATA frame begins is read straight into
// that receive's buffer (placement_sink.h: claimed per drain, so a cancel never waits on
// the network); otherwise it goes through the link's buffer to the sink in pieces.
// Back-pressure: while the sink is over its limit the link grants no CTS (until resume()),
// so no more large payloads come; small messages and payloads already granted still do.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "transport/net_link.h"
#include "transport/placement_sink.h"
#include "transport/quic_link/wire.h"

namespace nexar::tcp {

class Hub;

// TCP-only frames beside those of wire.h (little-endian):
//   PING       one byte: a keep-alive
//   CTS        u64 seq: the receiver has room for the large message announced as seq
//   DATA       u64 seq, u64 len, then len payload bytes: that message's payload
//   LARGE_NOW  a LARGE frame whose DATA follows at once, on credit
//   CREDIT     u64 bytes: credit returned (payloads sent on it were read whole)
// A large message's LARGE frame goes out at once; its payload only after the receiver's
// CTS, so a large message nobody has room for never blocks the frames behind it. Except on
// credit: each side may send up to kCreditBytes of large payloads that the receiver has not
// read whole yet without waiting for a CTS (LARGE_NOW, then DATA at once: no round trip per
// message); the receiver returns the credit as it reads them, and not while its unexpected
// store is over its limit, so credit bounds what arrives uninvited.
inline constexpr uint8_t kPing = 0x50;
inline constexpr uint8_t kCts = 0x51;
inline constexpr uint8_t kData = 0x52;
inline constexpr uint8_t kLargeNow = 0x53;
inline constexpr uint8_t kCredit = 0x54;
inline constexpr size_t kCtsSize = 1 + 8, kDataHead = 1 + 8 + 8, kCreditSize = 1 + 8;
inline constexpr int kMaxGranted = 4;  // large payloads granted and not yet read whole, per link
inline constexpr uint64_t kCreditBytes = 2u << 20;  // per direction of a link
// Returned credit waits for a frame going the other way until this much is due (the peer
// still holds the rest of kCreditBytes meanwhile); then it goes alone.
inline constexpr uint64_t kCreditReturnAlone = kCreditBytes / 2;

class TcpLink final : public transport::NetLink {
 public:
  TcpLink(int self_rank, int peer, transport::InboundSink* sink, Hub* hub);
  ~TcpLink() override;

  int peer() const { return peer_; }

  // transport::NetLink
  Status dial(const std::string& address) override;
  Status wait_ready(std::chrono::steady_clock::time_point deadline) override;
  void send_bye() override;
  Status wait_goodbye(std::chrono::steady_clock::time_point deadline) override;
  Status wait_delivered(std::chrono::steady_clock::time_point deadline) override;
  void close() override;
  void peer_gone(const Status& why) override;
  void send(transport::SendOp* op) override;
  void resume() override;
  void send_abort(uint32_t ctx, const Status& why) override;
  void cancel(transport::SendOp* op, const Status& why) override;

  // Hub side.
  // A proven connection (already non-blocking, in the hub's epoll set) with the bytes read
  // past the handshake. False if this link takes no connection (closed, or had one).
  bool adopt(int fd, std::vector<uint8_t> leftover, const std::string& peer_address);
  // Dialing failed before a proven connection.
  void fail_connect(const Status& why);
  void on_readable();  // drains the socket (any thread)
  void on_writable();  // flushes the queue (any thread)
  // A waiting thread's look at this link without asking epoll first: reads what the socket
  // has (one recv), true if that moved bytes. With bytes queued for EPOLLOUT it reads
  // nothing and says so (has_backlog): the caller asks epoll then.
  bool read_now();
  bool has_backlog() const { return tx_backlog_.load(std::memory_order_relaxed); }
  // Keep-alive and silence check (the hub's thread, every tick).
  void tick(int64_t now_ns, int64_t keepalive_ns, int64_t peer_timeout_ns);
  void resume_on_hub();  // the hub's thread, after resume()
  void fail_on_hub(const Status& why);

 private:
  struct TxItem {
    std::vector<uint8_t> head;                // frame bytes (a MSG's payload included)
    transport::SendOp* op = nullptr;          // a large message: its payload follows head
    size_t done = 0;                          // bytes of head + payload written
    size_t total() const { return head.size() + (op ? op->hdr.len : 0); }
  };
  // Queues a frame (and op's payload after it) and writes what the socket takes. Returns
  // the link's death if it is dead (then op, if any, is completed with it).
  Status enqueue(std::vector<uint8_t> head, transport::SendOp* op);
  // A small message: written at once from data when nothing is queued, else queued.
  Status send_msg(const transport::MsgHeader& hdr, const uint8_t* data);
  // Under tx_mu_: one non-blocking writev; the bytes taken, or -1 (the socket is full, or
  // broken: then the link's failure is posted to the hub).
  ssize_t write_locked(int fd, iovec* iov, size_t n);
  // Under tx_mu_: writes the credit not yet written as a CREDIT frame at out (kCreditSize
  // bytes) and counts it sent; the bytes written, 0 when none is due.
  size_t take_credit_locked(uint8_t* out);
  // Under tx_mu_: queues that CREDIT frame before the frame about to be queued (credit
  // rides on the next write instead of costing its own).
  bool push_credit_locked();  // true if it queued one
  // Under tx_mu_: writes queued items; completed large ops go to *done.
  void flush_locked(std::vector<transport::SendOp*>* done);
  void drain_locked();  // under rx_mu_
  void read_locked(int fd);  // under rx_mu_: reads and parses until the socket is empty
  bool parse_locked();  // under rx_mu_; false once the link failed
  void fail_locked(const Status& why);  // under rx_mu_
  void grant(uint64_t seq);  // sends CTS for seq (under rx_mu_)
  // Under rx_mu_: the next n payload bytes of the message being read (data: where they
  // are; null: already placed in its receive buffer).
  void payload_locked(const uint8_t* data, size_t n);
  // Under rx_mu_: the placed message's receive buffer (claimed for this drain), or null
  // when its payload is discarded.
  uint8_t* place_claim_locked();
  void place_release_locked();  // under rx_mu_, before a drain ends
  bool on_cts(uint64_t seq);  // the peer has room: seq's payload joins the queue (false: no such send)
  bool on_credit(uint64_t bytes);  // the peer returned credit (false: more than it was given)
  // Under rx_mu_: a LARGE frame (credited: LARGE_NOW, its payload follows at once); false
  // once the link failed.
  bool on_large(const quic_link::Frame& f, bool credited);
  void return_credit(uint64_t bytes);  // under rx_mu_: sends CREDIT, or owes it while paused

  const int self_rank_, peer_;
  const uint64_t eager_limit_;
  transport::InboundSink* const sink_;
  transport::PlacementSink* const placer_;  // sink_ if it places payloads, else null
  Hub* const hub_;
  std::atomic<int> fd_{-1};
  std::string peer_address_;

  std::mutex tx_mu_;
  std::condition_variable cv_;  // with tx_mu_: ready, goodbye, dead
  std::deque<TxItem> tx_;
  std::unordered_map<uint64_t, TxItem> await_cts_;  // large sends by seq: payload waits for CTS
  
  bool ready_ = false, closed_ = false, bye_received_ = false;
  Status dead_;
  std::atomic<int64_t> last_tx_ns_{0};
  uint64_t next_tx_seq_ = 0;           // LARGE frames
  uint64_t tx_credit_ = kCreditBytes;  // payload bytes this side may still send on credit
  uint64_t sent_on_credit_ = 0, sent_after_cts_ = 0;  // large sends (said when the connection ends)
  // Credit returned to the peer and not written yet: it goes with this side's next frame,
  // or alone once it reaches kCreditReturnAlone.
  uint64_t credit_unsent_ = 0;
  uint64_t credit_frames_ = 0, credit_alone_ = 0;  // CREDIT frames written, of them alone (said at the end)
  std::atomic<bool> bye_sent_{false};

  std::atomic<bool> tx_backlog_{false};  // tx_ is not empty: waits for EPOLLOUT

  std::mutex rx_mu_;
  std::atomic<bool> rx_pending_{false};
  std::atomic<uint64_t> rx_reads_{0};  // reads that returned bytes (written under rx_mu_)
  std::atomic<uint64_t> direct_reads_{0};  // of them, by read_now (said when the connection ends)
  std::vector<uint8_t> rx_;  // bytes read, not yet parsed: [rx_off_, rx_end_)
  size_t rx_off_ = 0, rx_end_ = 0;
  struct Announced {
    transport::InboundMsg* msg;
    uint64_t len;
    bool credited;  // sent on credit: returned once read whole
  };
  std::unordered_map<uint64_t, Announced> announced_;  // LARGE seen, DATA not yet
  std::deque<uint64_t> cts_owed_;  // granted once the sink has room again, in order
  int granted_ = 0;                // CTS sent whose payload has not arrived whole
  transport::InboundMsg* large_ = nullptr;  // the message whose DATA payload is being read
  uint64_t large_left_ = 0;                  // its bytes still to come (dropped if large_ is null)
  uint64_t large_len_ = 0;                   // its length
  bool large_credited_ = false;              // it came on credit
  int credited_due_ = 0;                     // payloads announced on credit, not yet read whole
  uint64_t rx_credit_ = kCreditBytes;        // what the peer may still send on credit
  uint64_t credit_owed_ = 0;                 // credit held back while paused
  bool placed_ = false;   // large_'s payload goes through placement (BOUND or DISCARD at its start)
  bool claimed_ = false;  // placed_ and claimed in this drain: place_dst_ is valid
  uint8_t* place_dst_ = nullptr;  // the receive buffer (null: the payload is discarded)
  bool rx_dead_ = false;
  // Payload bytes of placed messages: read straight into their receives, or copied there
  // from rx_ (said when the connection ends: the second is the copy direct reads avoid).
  uint64_t rx_direct_ = 0, rx_copied_ = 0;
  std::atomic<bool> paused_{false};  // the sink is over its limit: no CTS until resume
  std::atomic<bool> resume_requested_{false};
  std::atomic<int64_t> last_rx_ns_{0};
  Status fail_request_;  // under tx_mu_: set by fail_on_hub / peer_gone, applied by the reader
  std::atomic<bool> fail_requested_{false};  // fail_request_ is set
};

}  // namespace nexar::tcp
