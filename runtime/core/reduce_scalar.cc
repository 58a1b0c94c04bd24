// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The portable kernel set: plain C++ that any CPU runs (and the compiler vectorizes for
// the baseline ISA). float16 goes through the software conversions of dtype.h.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/reduce_table.h"

// Vectorized at -O2 too (see reduce_avx2.cc: GCC's cheap model leaves them scalar).
#if !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif
#define NX_KERNEL_NS nexar_reduce_scalar
#include "core/reduce_kernels.inc"
#if !defined(__clang__)
#pragma GCC pop_options
#endif

namespace nexar::reduce_impl {
namespace {

struct Half {
  using V = float;
  static float widen(uint16_t h) { return half_to_float(h); }
  static uint16_t narrow(float f) { return float_to_half(f); }
};

KernelTable build() {
  KernelTable t{};
  nexar_reduce_scalar::fill_common_rows(t);
  nexar_reduce_scalar::fill_row<uint16_t, Half, nexar_reduce_scalar::FloatOps<float>>(t.k[NEXAR_FLOAT16]);
  return t;
}

}  // namespace

const KernelTable& scalar_table() {
  static const KernelTable table = build();
  return table;
}

}  // namespace nexar::reduce_impl
