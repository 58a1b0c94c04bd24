// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a peer's QUIC link delivers into: the engine, while QUIC is how this rank reaches
// that peer. Once the peer is reached over shared memory instead, the gate closes: a QUIC
// connection that still claims the peer (a holder of its certificate) can neither deliver
// messages nor make the engine believe the peer was lost. A link may place a large payload
// straight into the matched receive through it (transport/placement_sink.h) when the
// engine allows that.
#pragma once

#include <atomic>

#include "transport/placement_sink.h"

namespace nexar::bootstrap {

class PeerGate final : public transport::PlacementSink {
 public:
  explicit PeerGate(transport::InboundSink* engine)
      : engine_(engine), placer_(dynamic_cast<transport::PlacementSink*>(engine)) {}
  void close() { open_.store(false, std::memory_order_release); }
  bool is_open() const { return open_.load(std::memory_order_acquire); }

  bool on_message(int src, const transport::MsgHeader& hdr, const uint8_t* data) override {
    return is_open() ? engine_->on_message(src, hdr, data) : true;
  }
  transport::InboundMsg* on_message_begin(int src, const transport::MsgHeader& hdr) override {
    return is_open() ? engine_->on_message_begin(src, hdr) : dropped();
  }
  bool on_message_data(transport::InboundMsg* msg, const uint8_t* data, size_t n) override {
    return msg == dropped() ? true : engine_->on_message_data(msg, data, n);
  }
  void on_message_abandon(transport::InboundMsg* msg, const Status& why) override {
    if (msg != dropped()) engine_->on_message_abandon(msg, why);
  }
  void on_peer_lost(int src, const Status& why) override {
    if (is_open()) engine_->on_peer_lost(src, why);
  }
  void on_remote_abort(int src, uint32_t ctx, const Status& why) override {
    if (is_open()) engine_->on_remote_abort(src, ctx, why);
  }
  // Placement: a dropped message is discarded; without an engine that places, every
  // message stays PENDING (the link then delivers through on_message_data).
  transport::Placement claim_placement(transport::InboundMsg* msg, uint8_t** dst) override {
    if (msg == dropped()) return transport::Placement::DISCARD;
    return placer_ ? placer_->claim_placement(msg, dst) : transport::Placement::PENDING;
  }
  void finish_placement(transport::InboundMsg* msg, const Status& st) override {
    if (msg != dropped() && placer_) placer_->finish_placement(msg, st);
  }
  void release_placement(transport::InboundMsg* msg) override {
    if (msg != dropped() && placer_) placer_->release_placement(msg);
  }
  uint64_t bind_generation() const override { return placer_ ? placer_->bind_generation() : 0; }

 private:
  // A message nobody receives: its pieces are dropped.
  transport::InboundMsg* dropped() { return reinterpret_cast<transport::InboundMsg*>(&sentinel_); }
  transport::InboundSink* const engine_;
  transport::PlacementSink* const placer_;  // engine_ if it places payloads, else null
  std::atomic<bool> open_{true};
  char sentinel_ = 0;
};

}  // namespace nexar::bootstrap
