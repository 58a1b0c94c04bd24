// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The AVX2 + F16C kernel set: the same templates as reduce_scalar.cc compiled for AVX2
// (the compiler vectorizes them), plus float16 done with F16C conversions eight at a
// time. Only called when the CPU reports both features (reduce.cc checks).
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/reduce_table.h"

// Everything defined below (not the headers above) is compiled for AVX2 + F16C: a
// whole-file -mavx2 would also give AVX2 code to inline functions of the headers, which
// the linker may then pick for the scalar path.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
// -O2 (RelWithDebInfo) vectorizes only with GCC's "very cheap" cost model, which refuses
// the aliasing check these kernels need (out may be an input): they stayed scalar, a
// 512 KiB float sum took ~3x longer than its memory traffic. Vectorize them here whatever
// the build's level. (clang vectorizes at -O2 with runtime alias checks.)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#define NX_KERNEL_NS nexar_reduce_avx2
#include "core/reduce_kernels.inc"

namespace nexar::reduce_impl {
namespace {

enum class HalfOp { SUM, PROD, MIN, MAX };

template <HalfOp OP>
__m256 half_apply(__m256 a, __m256 b) {
  if constexpr (OP == HalfOp::SUM) return _mm256_add_ps(a, b);
  if constexpr (OP == HalfOp::PROD) return _mm256_mul_ps(a, b);
  // MIN/MAX: take a where a is NaN or a wins the comparison (ties give a), else b.
  const __m256 a_nan = _mm256_cmp_ps(a, a, _CMP_UNORD_Q);
  const __m256 a_wins = OP == HalfOp::MIN ? _mm256_cmp_ps(a, b, _CMP_LE_OQ) : _mm256_cmp_ps(a, b, _CMP_GE_OQ);
  return _mm256_blendv_ps(b, a, _mm256_or_ps(a_nan, a_wins));
}

template <HalfOp OP>
float half_apply_one(float a, float b) {
  using F = nexar_reduce_avx2::FloatOps<float>;
  if constexpr (OP == HalfOp::SUM) return F::sum(a, b);
  if constexpr (OP == HalfOp::PROD) return F::prod(a, b);
  if constexpr (OP == HalfOp::MIN) return F::min(a, b);
  return F::max(a, b);
}

template <HalfOp OP>
void half_kernel(void* out, const void* a, const void* b, size_t n) {
  unsigned char* o = static_cast<unsigned char*>(out);
  const unsigned char* x = static_cast<const unsigned char*>(a);
  const unsigned char* y = static_cast<const unsigned char*>(b);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 va = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 2 * i)));
    const __m256 vb = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y + 2 * i)));
    const __m128i r = _mm256_cvtps_ph(half_apply<OP>(va, vb), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 2 * i), r);
  }
  for (; i < n; ++i) {
    uint16_t ha, hb;
    std::memcpy(&ha, x + 2 * i, 2);
    std::memcpy(&hb, y + 2 * i, 2);
    const uint16_t r = float_to_half(half_apply_one<OP>(half_to_float(ha), half_to_float(hb)));
    std::memcpy(o + 2 * i, &r, 2);
  }
}

KernelTable build() {
  KernelTable t{};
  nexar_reduce_avx2::fill_common_rows(t);
  t.k[NEXAR_FLOAT16][0] = &half_kernel<HalfOp::SUM>;
  t.k[NEXAR_FLOAT16][1] = &half_kernel<HalfOp::PROD>;
  t.k[NEXAR_FLOAT16][2] = &half_kernel<HalfOp::MIN>;
  t.k[NEXAR_FLOAT16][3] = &half_kernel<HalfOp::MAX>;
  return t;
}

}  // namespace

const KernelTable& avx2_table() {
  static const KernelTable table = build();
  return table;
}

}  // namespace nexar::reduce_impl

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
