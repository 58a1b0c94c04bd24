// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "p2p/unexpected.h"

#include <algorithm>
#include <cstring>

namespace nexar::p2p {

void UnexpectedStore::append(UnexpectedMsg* m, const uint8_t* data, size_t n) {
  const bool first = m->received == 0;
  m->received += n;
  if (n == 0) return;
  bytes_ += n;
  if (first && n <= UnexpectedMsg::kSmall && m->received == m->hdr.len) {  // the whole message
    std::memcpy(m->small, data, n);
    m->small_len = static_cast<uint32_t>(n);
    return;
  }
  m->pieces.emplace_back(data, data + n);
}

void UnexpectedStore::release(UnexpectedMsg* m) {
  for (auto& p : m->pieces) bytes_ -= p.size();
  bytes_ -= m->small_len;
  m->small_len = 0;
  m->pieces.clear();
  m->pieces.shrink_to_fit();
}

}  // namespace nexar::p2p
