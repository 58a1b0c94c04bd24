// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Shared by the engine tests: two engines joined by real shared memory (ShmPair) and
// payloads that differ per message.
#pragma once

#include <cstdint>
#include <vector>

#include "shm/shm_pair.h"

namespace nexar::p2p::test {

inline constexpr uint32_t kCtx = shm::test::ShmPair::kCtx;

// A pair whose large messages move by CMA (the receiver reads the sender's memory) or
// through the ring (the sender copies them after the receiver's go-ahead).
inline shm::test::PairOptions moving_by(bool cma) {
  shm::test::PairOptions opt;
  opt.cma = cma;
  return opt;
}

inline std::vector<uint8_t> bytes_of(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 9));
  return v;
}

}  // namespace nexar::p2p::test
