// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the engine's source files (engine*.cc) share and nobody else needs: an inbound
// message's state and the matching rule.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "p2p/request.h"
#include "p2p/unexpected.h"
#include "transport/transport.h"

namespace nexar::transport {
// A message arriving in pieces: bound to a receive, stored as unexpected, or discarded.
struct InboundMsg {
  int src = -1;
  MsgHeader hdr;
  uint64_t received = 0;
  p2p::RequestPtr req;
  p2p::UnexpectedMsg* um = nullptr;
  bool discard = false;
  bool placing = false;  // a link writes the payload straight into req->buf right now
  // A message for the relay (p2p::kRelayContext): its bytes gather here, whole before use.
  bool relay = false;
  std::vector<uint8_t> relay_bytes;
};
}  // namespace nexar::transport

namespace nexar::p2p {
class Engine;
}

namespace nexar::p2p::detail {

// The fragments of one user send still with a link; the last completes req.
struct SendGroup {
  RequestPtr req;
  std::atomic<int> left{0};
};

// Whom a relay fragment's credit goes back to once this rank is done with it
// (engine_relay.cc): the neighbour it came from (to; -1: this rank is its source), for its
// hop class there (cls).
struct CreditBack {
  int to = -1;
  int cls = -1;
};

// A message whose bytes the send owns (a control message, a relay fragment or credit):
// frees itself once the link is done. A relay fragment tells release_to once its link took
// it (so that the rank it came from gets its credit back), and completes the user's send
// it is part of (group) when it is the last of them.
class OwnedSend final : public transport::SendOp {
 public:
  OwnedSend(std::vector<uint8_t> bytes, uint32_t ctx, Engine* release_to = nullptr, CreditBack credit = {},
            std::shared_ptr<SendGroup> group = nullptr);
  void complete(const Status&) override;
  size_t bytes() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
  Engine* release_to_;
  CreditBack credit_;
  std::shared_ptr<SendGroup> group_;
};

// What a relay fragment carries in front of its piece of payload: where the message comes
// from and goes, its own header (len: the whole payload), and where the piece starts.
// Fixed size, in the byte order of the hosts (as MsgHeader on links).
// hops: the links it crossed before the one it travels on now (its hop class there).
struct RelayPrefix {
  int32_t src = -1;
  int32_t dst = -1;
  transport::MsgHeader inner;
  uint64_t offset = 0;
  uint32_t hops = 0;
  uint32_t reserved = 0;
};
// What a relay credit message (kRelayContext, tag kRelayCreditTag) carries: the sender of
// it took `bytes` of class `cls` fragments off this rank's hands.
struct RelayCredit {
  uint32_t cls = 0;
  uint32_t reserved = 0;
  uint64_t bytes = 0;
};
// The prefix and n payload bytes (from data) as one buffer.
std::vector<uint8_t> relay_frame(const RelayPrefix& p, const uint8_t* data, size_t n);

// Whether a receive or probe for (filter_src, filter_tag) takes a message from src with tag.
inline bool matches(int filter_src, int filter_tag, int src, int tag) {
  return (filter_src == NEXAR_ANY_SOURCE || filter_src == src) && (filter_tag == NEXAR_ANY_TAG || filter_tag == tag);
}

// Removes the first element equal to v, if any.
template <class Seq, class T>
void erase_one(Seq& seq, const T& v) {
  auto it = std::find(seq.begin(), seq.end(), v);
  if (it != seq.end()) seq.erase(it);
}

}  // namespace nexar::p2p::detail
