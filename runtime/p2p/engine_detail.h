// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the engine's source files (engine*.cc) share and nobody else needs: an inbound
// message's state and the matching rule.
#pragma once

#include <algorithm>

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
};
}  // namespace nexar::transport

namespace nexar::p2p::detail {

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
