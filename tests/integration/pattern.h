// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The bytes the point-to-point probes send, and the hash a probe prints of what it
// received: the test that runs it computes the same hash of what should have arrived.
#pragma once

#include <cstddef>
#include <cstdint>

namespace probe {

// A byte pattern distinct per (sender, message, offset).
inline unsigned char pattern(int sender, int msg, size_t i) {
  return static_cast<unsigned char>((i * 131u) ^ (static_cast<unsigned>(sender) * 7919u) ^ (static_cast<unsigned>(msg) * 104729u) ^ (i >> 13));
}

// FNV-1a, 64 bits.
inline uint64_t fnv1a(const unsigned char* p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// fnv1a of pattern(sender, msg, 0 .. n), without the buffer.
inline uint64_t pattern_fnv1a(int sender, int msg, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ pattern(sender, msg, i)) * 1099511628211ull;
  return h;
}

}  // namespace probe
