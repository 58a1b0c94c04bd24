#include "p2p/unexpected.h"

#include <algorithm>
#include <cstring>

namespace nexar::p2p {

void UnexpectedStore::append(UnexpectedMsg* m, const uint8_t* data, size_t n) {
  m->received += n;
  if (n == 0) return;
  m->pieces.emplace_back(data, data + n);
  bytes_ += n;
}

size_t UnexpectedStore::drain_into(UnexpectedMsg* m, uint8_t* dst, size_t cap) {
  size_t off = 0;
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
  m->pieces.clear();
  m->pieces.shrink_to_fit();
}

}  // namespace nexar::p2p
