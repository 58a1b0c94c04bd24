// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Internal to the reduction kernels: a table of element-wise kernels per (dtype, op),
// one table per instruction set (reduce_scalar.cc, reduce_avx2.cc).
#pragma once

#include <cstddef>

namespace nexar::reduce_impl {

using Kernel = void (*)(void* out, const void* a, const void* b, size_t n);

// Rows in nexar_dtype_t order, columns SUM, PROD, MIN, MAX, BAND, BOR, BXOR (AVG uses
// SUM). The bitwise columns of the float rows are empty: validation refuses those calls.
constexpr int kKernelColumns = 7;
struct KernelTable {
  Kernel k[10][kKernelColumns];
};

const KernelTable& scalar_table();
const KernelTable& avx2_table();  // only call when the CPU has AVX2 and F16C

}  // namespace nexar::reduce_impl
