// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The per-peer transport interface between the point-to-point engine and a transport
// (quic_link/ between hosts, shm/ between ranks of one host, p2p/self_link.h within a
// process). A transport moves framed messages: a header (context, tag, length) and a payload.
// The other seam types live next to this file: placement_sink.h (a sink that lets a link
// write a large payload straight into the matched receive), progress.h (polling that
// waiting threads do for a transport) and doorbell.h (the wake-up word they sleep on).
//
// Sending: the engine hands a link a SendOp; the link completes it (exactly once, on any
// thread) when the payload memory may be reused, or with the error that stopped it.
// Receiving: the link calls its InboundSink for each message in the order the peer sent
// them; large payloads arrive in pieces. The sink says whether it has room; when it has
// none the link stops granting the peer credit until the sink calls resume().
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.h"

namespace nexar::transport {

struct MsgHeader {
  uint32_t ctx = 0;  // communicator context id
  int32_t tag = 0;
  uint64_t len = 0;  // payload bytes
  uint64_t aux = 0;  // a collective's descriptor (comm/coll_descriptor.h); 0 for point to point
};

class SendOp {
 public:
  virtual ~SendOp() = default;
  MsgHeader hdr;
  const uint8_t* data = nullptr;  // hdr.len bytes, valid until complete() is called
  // Complete only once the transport took the bytes (QUIC wrote them into packets, within
  // the peer's credit), not once they were copied into the link's queue: the sender then
  // knows how much waits in the link (a relay's budget per next hop, p2p/engine_relay.cc).
  bool complete_when_taken = false;
  // Called exactly once by the link.
  virtual void complete(const Status& status) = 0;
};

// A message that is arriving in pieces (opaque to links).
struct InboundMsg;

class InboundSink {
 public:
  virtual ~InboundSink() = default;
  // A whole message at once (small messages). Returns false when the sink is over its
  // memory limit: the link must hold back the peer's credit until resume().
  virtual bool on_message(int src, const MsgHeader& hdr, const uint8_t* data) = 0;
  // A large message begins; its payload follows through on_message_data, in order.
  virtual InboundMsg* on_message_begin(int src, const MsgHeader& hdr) = 0;
  // The next n bytes of msg's payload; the last piece completes it. Same return as on_message.
  virtual bool on_message_data(InboundMsg* msg, const uint8_t* data, size_t n) = 0;
  // msg will get no more data (its connection died): the sink frees it. The link calls
  // this for each unfinished message before on_peer_lost.
  virtual void on_message_abandon(InboundMsg* msg, const Status& why) = 0;
  // The peer is gone or misbehaved: fail everything that needs it.
  virtual void on_peer_lost(int src, const Status& why) = 0;
  // The peer reports that communicator ctx failed there (e.g. a collective mismatch).
  virtual void on_remote_abort(int src, uint32_t ctx, const Status& why) = 0;
};

class PeerLink {
 public:
  virtual ~PeerLink() = default;
  // Queues op for sending. Thread-safe. Never blocks on the network.
  virtual void send(SendOp* op) = 0;
  // The sink has room again: grant the peer the credit held back. Thread-safe.
  virtual void resume() = 0;
  // Tells the peer that communicator ctx failed here. Thread-safe, best effort.
  virtual void send_abort(uint32_t ctx, const Status& why) = 0;
  // Abandons op (a timeout): after this returns the link no longer reads op->data, and
  // op is completed with `why` if it was not complete yet. Thread-safe; may block briefly.
  virtual void cancel(SendOp* op, const Status& why) = 0;
  // This rank waits for something from the peer (a receive from it was posted, or an
  // agreement waits for its vote): a link that connects on first use connects now, so
  // that the peer's loss is noticed. Thread-safe; never blocks.
  virtual void expect() {}
};

}  // namespace nexar::transport
