// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic_link/wire.h"

#include <algorithm>
#include <cstring>

#include "transport/le_bytes.h"

namespace nexar::quic_link {
namespace {

using transport::get_le;
using transport::put_le;

constexpr size_t kHelloSize = 1 + 4 + 2 + 4 + 4;
constexpr size_t kMsgHead = kMsgHeadSize;
constexpr size_t kLargeSize = kMsgHead + 8;
constexpr size_t kAbortHead = 1 + 4 + 4 + 2;

}  // namespace

void encode_hello(std::vector<uint8_t>* out, int32_t rank, int32_t world_size) {
  out->push_back(static_cast<uint8_t>(FrameType::HELLO));
  put_le(out, kMagic);
  put_le(out, kVersion);
  put_le(out, rank);
  put_le(out, world_size);
}

void encode_msg_head(uint8_t* out, const transport::MsgHeader& hdr) {
  static_assert(kMsgHeadSize == 1 + sizeof(hdr.ctx) + sizeof(hdr.tag) + sizeof(hdr.len) + sizeof(hdr.aux));
  out[0] = static_cast<uint8_t>(FrameType::MSG);
  std::memcpy(out + 1, &hdr.ctx, 4);  // little-endian hosts: a copy is the encoding (le_bytes.h)
  std::memcpy(out + 5, &hdr.tag, 4);
  std::memcpy(out + 9, &hdr.len, 8);
  std::memcpy(out + 17, &hdr.aux, 8);
}

void encode_msg(std::vector<uint8_t>* out, const transport::MsgHeader& hdr, const uint8_t* payload) {
  // One resize: appending field by field reallocated the vector four or five times.
  const size_t n = out->size();
  out->resize(n + kMsgHeadSize + hdr.len);
  encode_msg_head(out->data() + n, hdr);
  if (hdr.len) std::memcpy(out->data() + n + kMsgHeadSize, payload, hdr.len);
}

void encode_large(std::vector<uint8_t>* out, const transport::MsgHeader& hdr, uint64_t seq) {
  out->push_back(static_cast<uint8_t>(FrameType::LARGE));
  put_le(out, hdr.ctx);
  put_le(out, hdr.tag);
  put_le(out, hdr.len);
  put_le(out, hdr.aux);
  put_le(out, seq);
}

void encode_bye(std::vector<uint8_t>* out) { out->push_back(static_cast<uint8_t>(FrameType::BYE)); }

void encode_abort(std::vector<uint8_t>* out, uint32_t ctx, int32_t code, const std::string& text) {
  const std::string t = text.substr(0, kMaxAbortText);
  out->push_back(static_cast<uint8_t>(FrameType::ABORT));
  put_le(out, ctx);
  put_le(out, code);
  put_le(out, static_cast<uint16_t>(t.size()));
  out->insert(out->end(), t.begin(), t.end());
}

size_t decode_frame(const uint8_t* p, size_t len, Frame* f, Status* error) {
  if (len == 0) return 0;
  const auto type = static_cast<FrameType>(p[0]);
  f->type = type;
  switch (type) {
    case FrameType::HELLO: {
      if (len < kHelloSize) return 0;
      if (get_le<uint32_t>(p + 1) != kMagic || get_le<uint16_t>(p + 5) != kVersion) {
        *error = Status(NEXAR_ERR_PROTOCOL, "peer speaks another protocol or version (bad HELLO)");
        return 0;
      }
      f->rank = get_le<int32_t>(p + 7);
      f->world_size = get_le<int32_t>(p + 11);
      return kHelloSize;
    }
    case FrameType::MSG: {
      if (len < kMsgHead) return 0;
      f->hdr = {get_le<uint32_t>(p + 1), get_le<int32_t>(p + 5), get_le<uint64_t>(p + 9), get_le<uint64_t>(p + 17)};
      if (f->hdr.len > kMaxInline) {
        *error = Status(NEXAR_ERR_PROTOCOL, strprintf("inline message of %llu bytes exceeds the %zu-byte limit",
                                                      static_cast<unsigned long long>(f->hdr.len), kMaxInline));
        return 0;
      }
      if (len < kMsgHead + f->hdr.len) return 0;
      f->payload = p + kMsgHead;
      return kMsgHead + static_cast<size_t>(f->hdr.len);
    }
    case FrameType::LARGE: {
      if (len < kLargeSize) return 0;
      f->hdr = {get_le<uint32_t>(p + 1), get_le<int32_t>(p + 5), get_le<uint64_t>(p + 9), get_le<uint64_t>(p + 17)};
      f->seq = get_le<uint64_t>(p + 25);
      if (f->hdr.len == 0) {
        *error = Status(NEXAR_ERR_PROTOCOL, "large message announced with length 0");
        return 0;
      }
      return kLargeSize;
    }
    case FrameType::BYE:
      return 1;
    case FrameType::ABORT: {
      if (len < kAbortHead) return 0;
      uint16_t n = get_le<uint16_t>(p + 9);
      if (n > kMaxAbortText) {
        *error = Status(NEXAR_ERR_PROTOCOL, "abort text too long");
        return 0;
      }
      if (len < kAbortHead + n) return 0;
      f->hdr.ctx = get_le<uint32_t>(p + 1);
      f->code = get_le<int32_t>(p + 5);
      f->text.assign(reinterpret_cast<const char*>(p + kAbortHead), n);
      return kAbortHead + n;
    }
  }
  *error = Status(NEXAR_ERR_PROTOCOL, strprintf("unknown frame type %u", p[0]));
  return 0;
}

size_t frame_extent(const uint8_t* p, size_t len) {
  if (len == 0) return 1;
  switch (static_cast<FrameType>(p[0])) {
    case FrameType::HELLO:
      return kHelloSize;
    case FrameType::MSG:
      // A length past kMaxInline fails decode_frame once the head is there.
      return len < kMsgHead ? kMsgHead : kMsgHead + static_cast<size_t>(std::min<uint64_t>(get_le<uint64_t>(p + 9), kMaxInline));
    case FrameType::LARGE:
      return kLargeSize;
    case FrameType::BYE:
      return 1;
    case FrameType::ABORT:
      return len < kAbortHead ? kAbortHead : kAbortHead + get_le<uint16_t>(p + 9);
  }
  return 0;
}

}  // namespace nexar::quic_link
