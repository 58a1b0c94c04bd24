// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The rendezvous' HTTP resources as typed requests: parsing and validation of what a
// client sent (method, :path, body), and the limits both sides check.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace nexar::rendezvous {

inline constexpr size_t kMaxKeyLength = 256;
inline constexpr size_t kMaxValueSize = 1u << 20;
// A delta body is a decimal int64: never longer than this.
inline constexpr size_t kMaxDeltaLength = 32;
inline constexpr int64_t kMaxWaitMs = 24ll * 3600 * 1000;

enum class Op { kSet, kGet, kWait, kAdd, kStatus, kGather };

struct Request {
  Op op = Op::kGet;
  std::string key;
  std::string value;                  // kSet
  int64_t delta = 0;                  // kAdd
  std::chrono::milliseconds wait{0};  // kWait, kGather
  int64_t count = 0;                  // kGather: keys under the prefix (key) to wait for
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
};

// A one-line 400 response naming what was wrong.
Response bad_request(const std::string& why);

// Keys are [A-Za-z0-9._/-]{1,256}. On failure *why says what is wrong with it.
bool valid_key(std::string_view key, std::string* why);

// Parses a request. body_overflow: the client sent more than kMaxValueSize bytes (the
// body was cut). NEXAR_ERR_INVALID_ARGUMENT with a one-line message on any bad input.
Status parse_request(std::string_view method, std::string_view path, std::string_view body,
                     bool body_overflow, Request* out);

// The request line a client sends for r: method and path (with the query).
struct RequestLine {
  const char* method;
  std::string path;
};
RequestLine request_line(const Request& r);

const char* op_name(Op op);

}  // namespace nexar::rendezvous
