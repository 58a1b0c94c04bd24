// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the engine's source files (engine*.cc) share and nobody else needs: an inbound
// message's state and the matching rule.
#pragma once

#include <algorithm>
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

// A message whose bytes the send owns (a control message, a relayed one): frees itself
// once the link is done, telling release_to (a forward, counted against the relay limit).
class OwnedSend final : public transport::SendOp {
 public:
  OwnedSend(std::vector<uint8_t> bytes, uint32_t ctx, Engine* release_to = nullptr);
  void complete(const Status&) override;

 private:
  std::vector<uint8_t> bytes_;
  Engine* release_to_;
};

// What a relayed message carries in front of its payload: where it comes from and goes,
// and its own header. Fixed size, in the byte order of the hosts (as MsgHeader on links).
struct RelayPrefix {
  int32_t src = -1;
  int32_t dst = -1;
  transport::MsgHeader inner;
};
inline constexpr size_t kRelayPrefixBytes = 32;
// The prefix and payload as one buffer (the payload is inner.len bytes at data).
std::vector<uint8_t> relay_frame(const RelayPrefix& p, const uint8_t* data);

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
