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
  if (first && m->hdr.len <= UnexpectedStore::kWhole) m->whole = pool_.take(m->hdr.len);
  if (m->whole.data && m->whole_fill + n <= m->hdr.len) {
    std::memcpy(m->whole.data.get() + m->whole_fill, data, n);
    m->whole_fill += n;
    return;
  }
  if (m->whole.data) {  // more than the header said (or no memory): pieces from here on
    m->pieces.emplace_back(m->whole.data.get(), m->whole.data.get() + m->whole_fill);
    m->whole_fill = 0;
    pool_.give(std::move(m->whole), keep_);
  }
  m->pieces.emplace_back(data, data + n);
}

void UnexpectedStore::release(UnexpectedMsg* m) {
  for (auto& p : m->pieces) bytes_ -= p.size();
  bytes_ -= m->small_len + m->whole_fill;
  m->small_len = 0;
  m->whole_fill = 0;
  pool_.give(std::move(m->whole), keep_);
  m->pieces.clear();
  m->pieces.shrink_to_fit();
}

}  // namespace nexar::p2p
