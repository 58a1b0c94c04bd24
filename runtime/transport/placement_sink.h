// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the shared-memory link needs from its sink beyond InboundSink: writing
// a large payload straight into the matched receive buffer (one copy, by the receiver,
// from the sender's memory), and waiting for that receive when none is posted yet.
#pragma once

#include <cstdint>

#include "transport/transport.h"

namespace nexar::transport {

enum class Placement {
  PENDING,  // no receive matched yet: ask again (after bind_generation() changed)
  BOUND,    // *dst is the receive buffer (room for the whole payload): write it, then finish
  DISCARD,  // nobody will take the payload (cancelled, too long, peer lost): finish at once
};

class PlacementSink : public InboundSink {
 public:
  // msg came from on_message_begin. After BOUND or DISCARD the caller must call
  // finish_placement exactly once; until then the receive cannot be cancelled (a cancel
  // waits), so the buffer stays valid while the payload is written.
  virtual Placement claim_placement(InboundMsg* msg, uint8_t** dst) = 0;
  // The payload is in place (ok) or could not be written (the receive fails with st).
  // Frees msg.
  virtual void finish_placement(InboundMsg* msg, const Status& st) = 0;
  // Part of the payload is in place; more comes later (claim again first: the receive may
  // be cancelled in between, and then DISCARD says so).
  virtual void release_placement(InboundMsg* msg) = 0;
  // Changes whenever a message that was PENDING may have become BOUND or DISCARD.
  virtual uint64_t bind_generation() const = 0;
};

}  // namespace nexar::transport
