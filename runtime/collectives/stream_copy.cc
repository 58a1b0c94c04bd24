// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/stream_copy.h"

#include <cstdint>
#include <cstring>

#include "collectives/coll_util.h"
#include "core/cores.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace nexar::coll {
namespace {

#if defined(__x86_64__)
// SSE2 (every x86-64): 16-byte non-temporal stores, four per 64-byte line, then a fence
// so the stores are ordered before the caller publishes that the copy is done.
void stream_bytes(unsigned char* d, const unsigned char* s, size_t n) {
  const size_t head = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
  std::memcpy(d, s, head);
  size_t at = head;
  for (; n - at >= 64; at += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at + 48), e);
  }
  _mm_sfence();
  std::memcpy(d + at, s + at, n - at);
}
constexpr bool kHaveStreams = true;
#else
void stream_bytes(unsigned char* d, const unsigned char* s, size_t n) { std::memcpy(d, s, n); }
constexpr bool kHaveStreams = false;
#endif

// Below a page the stores save nothing worth the fence.
constexpr size_t kStreamMin = 4096;

}  // namespace

bool streams_past_cache(double host_bytes) {
  const size_t llc = last_level_cache_bytes();
  return kHaveStreams && llc > 0 && host_bytes > static_cast<double>(llc);
}

void copy_out(void* dst, const void* src, size_t n, bool stream) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (!stream || n < kStreamMin || (d < s + n && s < d + n)) {
    copy_bytes(dst, src, n);
    return;
  }
  stream_bytes(d, s, n);
}

}  // namespace nexar::coll
