// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The messages of a remote procedure call, on the communicator's RPC context:
//   request  caller -> target, tag kRequestTag: RequestHead, then the arguments
//   reply    target -> caller, tag the call's own (RequestHead::reply_tag): ReplyHead, then
//            the result (only when the call succeeded and the result fits the capacity)
// The caller posts its reply receive before it sends the request, so a reply never waits
// unexpected unless its call was given up (timeout): the target's server drops those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace nexar::comm::rpc {

inline constexpr int kRequestTag = 0;
// Reply tags run 1..kMaxReplyTag, then wrap.
inline constexpr int kMaxReplyTag = (1 << 30) - 1;

struct RequestHead {
  uint32_t magic;
  uint32_t fn_id;
  int32_t reply_tag;
  uint32_t pad;
  uint64_t capacity;  // the caller's result buffer: a larger result is refused at the target
};
inline constexpr uint32_t kRequestMagic = 0x4e585251;  // "NXRQ"

struct ReplyHead {
  uint32_t magic;
  int32_t code;           // nexar_result_t of the call
  uint64_t result_bytes;  // the handler's result size (also when it did not fit)
  char text[240];         // why the call failed (NUL-terminated), empty when it succeeded
};
inline constexpr uint32_t kReplyMagic = 0x4e585250;  // "NXRP"

inline ReplyHead make_reply_head(int32_t code, uint64_t result_bytes, const std::string& text) {
  ReplyHead h{};
  h.magic = kReplyMagic;
  h.code = code;
  h.result_bytes = result_bytes;
  std::strncpy(h.text, text.c_str(), sizeof(h.text) - 1);
  return h;
}

}  // namespace nexar::comm::rpc
