// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// An operation of the point-to-point engine in flight: a send (it is the SendOp handed to
// a link) or a receive (posted in the engine's matching queue). Completed exactly once,
// lock-free: the waiter (waiter.h) polls the transports and sleeps on its doorbell, which
// complete() rings.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "p2p/waiter.h"
#include "transport/transport.h"

namespace nexar::p2p {

class Request : public transport::SendOp {
 public:
  enum class Kind { SEND, RECV };
  explicit Request(Kind k, Waiter* waiter = nullptr) : kind(k), waiter_(waiter ? waiter : &Waiter::fallback()) {}

  const Kind kind;
  // Receive parameters (RECV only).
  uint32_t ctx = 0;
  int src_filter = 0;  // world rank or NEXAR_ANY_SOURCE
  int tag_filter = 0;  // tag or NEXAR_ANY_TAG
  uint8_t* buf = nullptr;
  size_t capacity = 0;
  // A scattering receive (nexar_recvv): the payload fills these in order and buf is unused.
  std::vector<iovec> regions;
  // Where a transport that needs one contiguous destination (shared memory's direct
  // placement) writes a scattering receive's payload; scattered when it is complete.
  std::vector<uint8_t> stage;
  // A collective's receive checks the sender's descriptor: a different one fails the
  // receive with NEXAR_ERR_MISMATCH, leaving the two values here.
  bool check_aux = false;
  uint64_t aux = 0;           // expected (receive)
  uint64_t aux_received = 0;  // what the sender had
  // Send parameters (SEND only): the link carrying it.
  transport::PeerLink* link = nullptr;
  int peer = -1;

  // Results of a receive: who sent it, with which tag, how many bytes.
  int source = -1;
  int tag = -1;
  size_t bytes = 0;

  // Engine bookkeeping, guarded by the engine's mutex.
  transport::InboundMsg* inflight = nullptr;  // a large message being received into buf
  bool posted = false;               // in the posted-receive queue

  // Holds the request alive while a link or the engine may still complete it.
  std::shared_ptr<Request> keepalive;

  // Writes n bytes of the payload at offset off into buf or across the regions (the
  // engine checked that the message fits).
  void write(size_t off, const uint8_t* data, size_t n);

  void complete(const Status& status) override;
  // Polls the transports once (so that testing in a loop makes progress), then reports.
  bool is_done();
  bool done() const { return state_.load(std::memory_order_acquire) == kDone; }
  // Waits until complete or deadline: the operation's status, or NEXAR_ERR_TIMEOUT
  // (then the operation is still in flight: the engine must cancel it).
  Status wait_until(Clock::time_point deadline);
  // The completion status (ok() until done).
  Status result();

 private:
  enum : int { kPending = 0, kCompleting = 1, kDone = 2 };
  Waiter* const waiter_;
  std::atomic<int> state_{kPending};
  Status status_;  // written once, before state_ becomes kDone
};

using RequestPtr = std::shared_ptr<Request>;

}  // namespace nexar::p2p
