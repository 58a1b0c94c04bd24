// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The quic_link frame decoder (bytes a peer sends on a QUIC stream): it uses no more than
// it was given, a malformed frame is NEXAR_ERR_PROTOCOL, and a frame it accepts encodes
// back to the same bytes.
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
    if (used == 0) return 0;  // incomplete
    std::vector<uint8_t> again;
    switch (f.type) {
      case FrameType::HELLO: encode_hello(&again, f.rank, f.world_size); break;
      case FrameType::MSG:
        nexar::fuzz::require(f.hdr.len <= kMaxInline, "an inline payload within its bound");
        nexar::fuzz::require(f.hdr.len == 0 || (f.payload >= data + at && f.payload + f.hdr.len <= data + at + used),
                             "the payload inside the frame");
        encode_msg(&again, f.hdr, f.payload);
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
