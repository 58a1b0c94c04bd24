// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Little-endian integers in byte buffers, for the wire formats (quic_link/wire.h, the TCP
// connect proof). Hosts are little-endian (x86-64, aarch64): a copy is the encoding.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace nexar::transport {

template <typename T>
void put_le(std::vector<uint8_t>* out, T v) {
  // resize + memcpy: GCC 12 at -O3 takes insert() into an empty vector for an overflow.
  const size_t n = out->size();
  out->resize(n + sizeof(T));
  std::memcpy(out->data() + n, &v, sizeof(T));
}

template <typename T>
T get_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace nexar::transport
