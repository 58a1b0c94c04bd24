// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The nexar message protocol on a QUIC connection (ALPN "nexar/1").
//
// Each side writes frames on one bidirectional control stream (the client opens it):
//   HELLO  magic "NXR1", version, claimed rank, world size   (first frame, both ways)
//   MSG    ctx, tag, len, aux, payload   small messages, inline and in order
//   LARGE  ctx, tag, len, aux, seq       a large message; its payload travels on its own
//                                        unidirectional stream that starts with seq (u64)
//   ABORT  ctx, code, text               communicator ctx failed on the sender
//   BYE                                  the sender is done: it sends nothing more
// All integers little-endian. Frames on the control stream define the order in which
// messages are matched, so messages between two ranks stay ordered even though large
// payloads move on separate streams (one stalled payload never blocks a barrier).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "transport/transport.h"

namespace nexar::quic_link {

inline constexpr char kAlpn[] = "nexar/1";
inline constexpr uint32_t kMagic = 0x3152584e;  // "NXR1"
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kMaxInline = 1u << 20;   // largest MSG payload accepted
inline constexpr size_t kMaxAbortText = 1024;

enum class FrameType : uint8_t { HELLO = 1, MSG = 2, LARGE = 3, ABORT = 4, BYE = 5 };

struct Frame {
  FrameType type{};
  // HELLO
  int32_t rank = -1;
  int32_t world_size = 0;
  // MSG / LARGE / ABORT
  transport::MsgHeader hdr;
  uint64_t seq = 0;
  const uint8_t* payload = nullptr;  // MSG: hdr.len bytes inside the parsed buffer
  int32_t code = 0;                  // ABORT
  std::string text;                  // ABORT
};

void encode_hello(std::vector<uint8_t>* out, int32_t rank, int32_t world_size);
void encode_msg(std::vector<uint8_t>* out, const transport::MsgHeader& hdr, const uint8_t* payload);
// A MSG frame's head (type, ctx, tag, len, aux; its payload follows): kMsgHeadSize bytes at
// out. For a writer that sends the payload from where it lies (TCP's writev).
inline constexpr size_t kMsgHeadSize = 1 + 4 + 4 + 8 + 8;
void encode_msg_head(uint8_t* out, const transport::MsgHeader& hdr);
void encode_large(std::vector<uint8_t>* out, const transport::MsgHeader& hdr, uint64_t seq);
void encode_bye(std::vector<uint8_t>* out);
void encode_abort(std::vector<uint8_t>* out, uint32_t ctx, int32_t code, const std::string& text);

// Parses one frame from [data, data+len). Returns the bytes it used, 0 if the frame is not
// complete yet, or sets *error (NEXAR_ERR_PROTOCOL naming the defect) for malformed input.
size_t decode_frame(const uint8_t* data, size_t len, Frame* out, Status* error);

// How many bytes the frame starting at data takes, as far as the len bytes present tell:
// its whole length once its fixed head is there, else that head's length; 0 for an unknown
// type (decode_frame reports it). A reader that must not read past a frame's end (TCP, to
// read the next payload straight into its receive) reads up to this.
size_t frame_extent(const uint8_t* data, size_t len);

}  // namespace nexar::quic_link
