// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The quic_link frame decoder (bytes a peer sends on a QUIC stream): it uses no more than
// it was given, a malformed frame is NEXAR_ERR_PROTOCOL, a frame it accepts encodes back to
// the same bytes (a MSG frame also as its head and its payload apart), and frame_extent
// agrees with it.
#include <algorithm>
#include <vector>

#include "fuzz_input.h"
#include "core/remote_status.h"
#include "transport/quic_link/wire.h"

using namespace nexar::quic_link;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t at = 0;
  while (at < size) {  // a stream carries frames back to back
    Frame f;
    nexar::Status err;
    const size_t used = decode_frame(data + at, size - at, &f, &err);
    if (!err.ok()) {
      nexar::fuzz::require(err.code() == NEXAR_ERR_PROTOCOL && !err.message().empty(), "a bad frame is PROTOCOL, named");
      return 0;
    }
    nexar::fuzz::require(used <= size - at, "a frame within the input");
    // frame_extent never points past the frame's end and always asks for more of an
    // incomplete one (a TCP reader reads up to it: neither into the next payload nor 0 bytes).
    if (used == 0) {  // incomplete
      nexar::fuzz::require(frame_extent(data + at, size - at) > size - at, "an incomplete frame's extent goes further");
      return 0;
    }
    for (size_t k = 0; k <= used; ++k) {
      const size_t e = frame_extent(data + at, k);
      nexar::fuzz::require(k == used ? e == used : e > k && e <= used, "a frame's extent ends at its end");
    }
    std::vector<uint8_t> again;
    switch (f.type) {
      case FrameType::HELLO: encode_hello(&again, f.rank, f.world_size); break;
      case FrameType::MSG:
        nexar::fuzz::require(f.hdr.len <= kMaxInline, "an inline payload within its bound");
        nexar::fuzz::require(f.hdr.len == 0 || (f.payload >= data + at && f.payload + f.hdr.len <= data + at + used),
                             "the payload inside the frame");
        encode_msg(&again, f.hdr, f.payload);
        {  // TCP writes the head from its own buffer and the payload from the sender's
          uint8_t head[kMsgHeadSize];
          encode_msg_head(head, f.hdr);
          nexar::fuzz::require(used == kMsgHeadSize + f.hdr.len && std::equal(head, head + kMsgHeadSize, data + at),
                               "a MSG frame is its head, then its payload");
        }
        break;
      case FrameType::LARGE: encode_large(&again, f.hdr, f.seq); break;
      case FrameType::BYE: encode_bye(&again); break;
      case FrameType::ABORT:
        nexar::fuzz::require(f.text.size() <= kMaxAbortText, "abort text within its bound");
        nexar::fuzz::require(!nexar::remote_failure(f.code, f.text).ok(), "a peer's abort is a failure");
        encode_abort(&again, f.hdr.ctx, f.code, f.text);
        break;
    }
    nexar::fuzz::require(again.size() == used && std::equal(again.begin(), again.end(), data + at),
                         "an accepted frame encodes back to its bytes");
    at += used;
  }
  return 0;
}
