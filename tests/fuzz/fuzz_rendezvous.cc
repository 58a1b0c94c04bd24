// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The rendezvous server's request parser (HTTP/3 from any client that reaches the port):
// input is "method\npath\nbody" plus an overflow flag (its first byte). A parsed request
// has a valid key and bounded value; a bad one is NEXAR_ERR_INVALID_ARGUMENT with a
// message; a request's own line parses back to the same request.
#include "fuzz_input.h"
#include "rendezvous/request.h"

namespace rv = nexar::rendezvous;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool overflow = data[0] & 1;
  const std::string text = nexar::fuzz::text_of(data + 1, size - 1);
  const size_t a = text.find('\n');
  const size_t b = a == std::string::npos ? std::string::npos : text.find('\n', a + 1);
  const std::string method = text.substr(0, a);
  const std::string path = a == std::string::npos ? "" : text.substr(a + 1, b == std::string::npos ? b : b - a - 1);
  const std::string body = b == std::string::npos ? "" : text.substr(b + 1);
  rv::Request r;
  const nexar::Status st = rv::parse_request(method, path, body, overflow, &r);
  if (!st.ok()) {
    nexar::fuzz::require(st.code() == NEXAR_ERR_INVALID_ARGUMENT && !st.message().empty(), "a bad request is named");
    return 0;
  }
  std::string why;
  nexar::fuzz::require(r.op == rv::Op::kStatus || rv::valid_key(r.key, &why), "a parsed key is valid");
  nexar::fuzz::require(r.value.size() <= rv::kMaxValueSize, "a value within its bound");
  nexar::fuzz::require(r.wait.count() >= 0 && r.wait.count() <= rv::kMaxWaitMs, "a wait within its bound");
  if (r.op == rv::Op::kSet || r.op == rv::Op::kAdd) return 0;  // their line carries no body
  const rv::RequestLine line = rv::request_line(r);
  rv::Request again;
  nexar::fuzz::require(rv::parse_request(line.method, line.path, "", false, &again).ok(), "a request's line parses");
  nexar::fuzz::require(again.op == r.op && again.key == r.key, "and names the same request");
  return 0;
}
