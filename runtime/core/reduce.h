// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Local reduction kernels: out[i] = a[i] op b[i], element-wise, for every dtype and op.
//
// Semantics (identical on every CPU, so ranks on different machines agree bit for bit):
//  - Integers wrap (the arithmetic is done in the unsigned type). MIN/MAX compare signed
//    or unsigned as the type says.
//  - float16 and bfloat16 are widened to float32, combined, and rounded back to nearest
//    even: every step rounds once to the 16-bit type.
//  - SUM/PROD on floats follow IEEE 754 (NaN in, NaN out; inf - inf = NaN).
//  - MIN/MAX on floats propagate NaN: if a is NaN the result is a, else if b is NaN it
//    is b. Ties (-0 vs +0) give a. Callers pass operands in a fixed order (lower rank
//    first) so every rank computes the same bits even for NaN payloads and signed zeros.
//  - AVG reduces as SUM; reduce_finalize divides once, at the end.
//  - BAND/BOR/BXOR: bitwise on integers; there are no float kernels for them (callers
//    refuse those calls first: op_applies_to in core/dtype.h).
// Buffers may have any alignment; out may be the same address as a or b (no other
// overlap). The vector path (AVX2 + F16C) is chosen at run time; a scalar path serves
// every other CPU.
#pragma once

#include <cstddef>

#include "nexar/nexar.h"

namespace nexar {

void reduce(void* out, const void* a, const void* b, size_t count, nexar_dtype_t dtype, nexar_op_t op);

// For AVG: buf[i] = buf[i] / n (integers: integer division toward zero; floats: one
// division, float16/bfloat16 through float32). Does nothing for the other ops.
void reduce_finalize(void* buf, size_t count, nexar_dtype_t dtype, nexar_op_t op, size_t n);

// The kernel sets compiled in. reduce() uses the best one this CPU supports.
enum class ReduceIsa { SCALAR, AVX2 };
ReduceIsa reduce_best_isa();
const char* reduce_isa_name(ReduceIsa isa);
bool reduce_isa_supported(ReduceIsa isa);
// Runs one specific kernel set (tests compare them). isa must be supported.
void reduce_with_isa(ReduceIsa isa, void* out, const void* a, const void* b, size_t count, nexar_dtype_t dtype,
                     nexar_op_t op);

}  // namespace nexar
