// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The records of the shared-memory link protocol (ring.h carries them; docs/shm.md):
//
//   MSG    MsgHeader, payload               a message of at most the shm eager limit
//   RTS    MsgHeader, seq, address          a large message. Once its receive is posted
//                                            the receiver reads it from the sender's
//                                            memory (CMA) and ACKs, or, without CMA,
//   CTS    seq, len                          asks for it, and the sender sends
//   DATA   seq, payload piece                its pieces, in order (no ACK: the last piece
//                                            completes the send)
//   ACK    seq, code                         the receiver is done with RTS seq (read, or
//                                            nobody takes it)
//   ABORT  ctx, code, text                   communicator ctx failed on the sender
//   BYE    -                                 the sender will send nothing more
//
// The rings of one pair are the order of its messages, as the control stream is on QUIC;
// large payloads move only into posted receives, so they never fill the unexpected store
// nor hold back the small messages behind them.
#pragma once

#include <cstdint>

#include "transport/transport.h"

namespace nexar::shm {

enum RecType : uint16_t { kRecMsg = 1, kRecRts = 2, kRecCts = 3, kRecData = 4, kRecAck = 5, kRecAbort = 6, kRecBye = 7 };

struct WireHeader {
  uint32_t ctx;
  int32_t tag;
  uint64_t len;
  uint64_t aux;
};
static_assert(sizeof(WireHeader) == 24);

inline WireHeader to_wire(const transport::MsgHeader& h) { return WireHeader{h.ctx, h.tag, h.len, h.aux}; }
inline transport::MsgHeader from_wire(const WireHeader& w) { return transport::MsgHeader{w.ctx, w.tag, w.len, w.aux}; }

struct RtsRec {
  WireHeader hdr;
  uint64_t seq;
  uint64_t addr;  // of the payload in the sender's address space
};

struct SeqRec {  // the head of a DATA record
  uint64_t seq;
};

struct CtsRec {
  uint64_t seq;
  uint64_t len;  // as announced (a sender that cancelled meanwhile sends this many zeros)
};

struct AckRec {
  uint64_t seq;
  int32_t code;  // NEXAR_SUCCESS or the error the receiver met reading the payload
  int32_t reserved;
};

struct AbortRec {
  uint32_t ctx;
  int32_t code;
  // followed by the text (the rest of the record)
};

inline constexpr size_t kMaxAbortText = 1024;

}  // namespace nexar::shm
