// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/compress_select.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collectives/compress_codec.h"

namespace nexar::coll::compress {
namespace {

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A uniform draw from [0, n) (multiply-shift: no division, the same on every machine).
uint64_t below(uint64_t* state, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(splitmix64(state)) * n) >> 64);
}

}  // namespace

size_t contributed(double ratio, size_t count) {
  if (count == 0) return 0;
  const double k = std::ceil(ratio * static_cast<double>(count));
  if (!(k >= 1)) return 1;
  return k >= static_cast<double>(count) ? count : static_cast<size_t>(k);
}

std::vector<uint32_t> top_k(const void* v, size_t count, nexar_dtype_t dtype, size_t k) {
  std::vector<float> mag32;
  std::vector<double> mag64;
  magnitudes(v, count, dtype, &mag32, &mag64);
  std::vector<uint32_t> idx(count);
  for (size_t i = 0; i < count; ++i) idx[i] = static_cast<uint32_t>(i);
  auto larger = [&](uint32_t a, uint32_t b) {
    const double ma = mag64.empty() ? mag32[a] : mag64[a], mb = mag64.empty() ? mag32[b] : mag64[b];
    return ma > mb || (ma == mb && a < b);
  };
  if (k < count) std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(), larger);
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

std::vector<uint32_t> random_k(uint64_t seed, size_t count, size_t k) {
  // Floyd: for j in [count - k, count) draw t in [0, j]; take t, or j if t was taken.
  std::vector<uint64_t> taken((count + 63) / 64, 0);
  auto take = [&](uint64_t i) {
    uint64_t& w = taken[i / 64];
    const uint64_t bit = uint64_t{1} << (i % 64);
    if (w & bit) return false;
    w |= bit;
    return true;
  };
  uint64_t state = seed;
  for (uint64_t j = count - k; j < count; ++j)
    if (!take(below(&state, j + 1))) take(j);
  std::vector<uint32_t> idx;
  idx.reserve(k);
  for (size_t w = 0; w < taken.size(); ++w)
    for (uint64_t bits = taken[w]; bits; bits &= bits - 1)
      idx.push_back(static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
  return idx;
}

}  // namespace nexar::coll::compress
