// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Element types and reduction operations of the public API: sizes, names, validity, the
// identity element of each op, and the float16 / bfloat16 <-> float32 conversions
// (round to nearest even) that the reduction kernels use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nexar/nexar.h"

namespace nexar {

// True for the values of nexar_dtype_t / nexar_op_t (anything else is a caller's error).
bool dtype_valid(nexar_dtype_t dtype);
bool op_valid(nexar_op_t op);
// Whether dtype is an integer type, and whether op is defined on dtype (the bitwise ops
// BAND, BOR, BXOR on integer types only; every other op on every type).
bool dtype_is_integer(nexar_dtype_t dtype);
bool op_is_bitwise(nexar_op_t op);
bool op_applies_to(nexar_op_t op, nexar_dtype_t dtype);
// Bytes per element; 0 for an invalid dtype. Inline: every call's checks and copies ask.
inline size_t dtype_size(nexar_dtype_t dtype) {
  switch (dtype) {
    case NEXAR_INT8: case NEXAR_UINT8: return 1;
    case NEXAR_FLOAT16: case NEXAR_BFLOAT16: return 2;
    case NEXAR_INT32: case NEXAR_UINT32: case NEXAR_FLOAT32: return 4;
    case NEXAR_INT64: case NEXAR_UINT64: case NEXAR_FLOAT64: return 8;
  }
  return 0;
}
// "float32", "sum"; "invalid" for values outside the enums.
const char* dtype_name(nexar_dtype_t dtype);
const char* op_name(nexar_op_t op);

// Writes count copies of op's identity: SUM and AVG 0, PROD 1, MIN the type's largest
// value (+inf for floats), MAX the type's lowest (-inf for floats), BAND all bits set,
// BOR and BXOR 0.
void fill_identity(void* buf, size_t count, nexar_dtype_t dtype, nexar_op_t op);

// IEEE binary16 and bfloat16 conversions. To half: round to nearest, ties to even;
// overflow gives inf; NaN stays NaN (quiet, sign kept).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

}  // namespace nexar
