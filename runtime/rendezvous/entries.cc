// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/entries.h"

#include <charconv>

#include "rendezvous/request.h"

namespace nexar::rendezvous {

std::string encode_entries(const Entries& entries) {
  std::string out;
  for (const auto& [key, value] : entries) {
    out += key;
    out += ' ';
    out += std::to_string(value.size());
    out += '\n';
    out += value;
    out += '\n';
  }
  return out;
}

Status decode_entries(std::string_view body, Entries* out) {
  out->clear();
  size_t at = 0;
  auto bad = [&](const char* what) {
    return Status(NEXAR_ERR_PROTOCOL, strprintf("gathered entries: %s at offset %zu", what, at));
  };
  while (at < body.size()) {
    const size_t nl = body.find('\n', at);
    const size_t sp = body.rfind(' ', nl);
    if (nl == std::string_view::npos || sp == std::string_view::npos || sp < at) return bad("no '<key> <length>' line");
    std::string why;
    std::string_view key = body.substr(at, sp - at);
    if (!valid_key(key, &why)) return bad("a malformed key");
    size_t len = 0;
    auto [end, ec] = std::from_chars(body.data() + sp + 1, body.data() + nl, len);
    if (ec != std::errc() || end != body.data() + nl || sp + 1 == nl) return bad("a length that is not a number");
    if (len > kMaxValueSize || body.size() - (nl + 1) < len + 1) return bad("a value running past the body");
    if (body[nl + 1 + len] != '\n') return bad("no newline after a value");
    out->emplace_back(std::string(key), std::string(body.substr(nl + 1, len)));
    at = nl + 1 + len + 1;
  }
  return Status::Ok();
}

}  // namespace nexar::rendezvous
