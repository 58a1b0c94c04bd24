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

size_t UnexpectedStore::drain_into(UnexpectedMsg* m, uint8_t* dst, size_t cap) {
  size_t off = std::min<size_t>(m->small_len, cap);
  if (off) std::memcpy(dst, m->small, off);
  for (auto& p : m->pieces) {
    size_t n = std::min(p.size(), cap - off);
    if (n) std::memcpy(dst + off, p.data(), n);
    off += n;
  }
  release(m);
  return off;
}

void UnexpectedStore::release(UnexpectedMsg* m) {
  for (auto& p : m->pieces) bytes_ -= p.size();
  bytes_ -= m->small_len;
  m->small_len = 0;
  m->pieces.clear();
  m->pieces.shrink_to_fit();
}

}  // namespace nexar::p2p
