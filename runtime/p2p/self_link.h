// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The link from a rank to itself: a send is delivered to the engine at once (copied into
// a posted receive, or stored as unexpected), so self-sends never touch a network.
#pragma once

#include "transport/transport.h"

namespace nexar::p2p {

class SelfLink final : public transport::PeerLink {
 public:
  SelfLink(transport::InboundSink* sink, int self_rank) : sink_(sink), rank_(self_rank) {}
  void send(transport::SendOp* op) override {
    // The store may go over its limit here: a rank cannot hold itself back.
    (void)sink_->on_message(rank_, op->hdr, op->data);
    op->complete(Status::Ok());
  }
  void resume() override {}
  void send_abort(uint32_t, const Status&) override {}
  void cancel(transport::SendOp*, const Status&) override {}

 private:
  transport::InboundSink* sink_;
  int rank_;
};

}  // namespace nexar::p2p
