// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/dtype.h"

#include <cstring>
#include <limits>
#include <type_traits>

namespace nexar {
namespace {

template <typename T>
void fill_typed(void* buf, size_t count, T v) {
  T* p = static_cast<T*>(buf);
  for (size_t i = 0; i < count; ++i) p[i] = v;
}

template <typename T>
void fill_identity_typed(void* buf, size_t count, nexar_op_t op) {
  using L = std::numeric_limits<T>;
  switch (op) {
    case NEXAR_SUM:
    case NEXAR_AVG:
    case NEXAR_BOR:
    case NEXAR_BXOR: fill_typed<T>(buf, count, T(0)); return;
    case NEXAR_PROD: fill_typed<T>(buf, count, T(1)); return;
    case NEXAR_MIN: fill_typed<T>(buf, count, L::has_infinity ? L::infinity() : L::max()); return;
    case NEXAR_MAX: fill_typed<T>(buf, count, L::has_infinity ? -L::infinity() : L::lowest()); return;
    case NEXAR_BAND:  // all bits set; floats never get here (op_applies_to)
      if constexpr (std::is_integral_v<T>) fill_typed<T>(buf, count, static_cast<T>(~std::make_unsigned_t<T>{0}));
      return;
  }
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

bool dtype_valid(nexar_dtype_t dtype) { return dtype_size(dtype) != 0; }

bool op_valid(nexar_op_t op) {
  switch (op) {
    case NEXAR_SUM: case NEXAR_PROD: case NEXAR_MIN: case NEXAR_MAX: case NEXAR_AVG:
    case NEXAR_BAND: case NEXAR_BOR: case NEXAR_BXOR: return true;
  }
  return false;
}

bool dtype_is_integer(nexar_dtype_t dtype) { return dtype_valid(dtype) && dtype < NEXAR_FLOAT16; }

bool op_is_bitwise(nexar_op_t op) { return op == NEXAR_BAND || op == NEXAR_BOR || op == NEXAR_BXOR; }

bool op_applies_to(nexar_op_t op, nexar_dtype_t dtype) { return !op_is_bitwise(op) || dtype_is_integer(dtype); }

const char* dtype_name(nexar_dtype_t dtype) {
  switch (dtype) {
    case NEXAR_INT8: return "int8";
    case NEXAR_UINT8: return "uint8";
    case NEXAR_INT32: return "int32";
    case NEXAR_UINT32: return "uint32";
    case NEXAR_INT64: return "int64";
    case NEXAR_UINT64: return "uint64";
    case NEXAR_FLOAT16: return "float16";
    case NEXAR_BFLOAT16: return "bfloat16";
    case NEXAR_FLOAT32: return "float32";
    case NEXAR_FLOAT64: return "float64";
  }
  return "invalid";
}

const char* op_name(nexar_op_t op) {
  switch (op) {
    case NEXAR_SUM: return "sum";
    case NEXAR_PROD: return "prod";
    case NEXAR_MIN: return "min";
    case NEXAR_MAX: return "max";
    case NEXAR_AVG: return "avg";
    case NEXAR_BAND: return "band";
    case NEXAR_BOR: return "bor";
    case NEXAR_BXOR: return "bxor";
  }
  return "invalid";
}

void fill_identity(void* buf, size_t count, nexar_dtype_t dtype, nexar_op_t op) {
  switch (dtype) {
    case NEXAR_INT8: return fill_identity_typed<int8_t>(buf, count, op);
    case NEXAR_UINT8: return fill_identity_typed<uint8_t>(buf, count, op);
    case NEXAR_INT32: return fill_identity_typed<int32_t>(buf, count, op);
    case NEXAR_UINT32: return fill_identity_typed<uint32_t>(buf, count, op);
    case NEXAR_INT64: return fill_identity_typed<int64_t>(buf, count, op);
    case NEXAR_UINT64: return fill_identity_typed<uint64_t>(buf, count, op);
    case NEXAR_FLOAT32: return fill_identity_typed<float>(buf, count, op);
    case NEXAR_FLOAT64: return fill_identity_typed<double>(buf, count, op);
    case NEXAR_FLOAT16: {
      const float v = op == NEXAR_PROD ? 1.0f : op == NEXAR_MIN ? std::numeric_limits<float>::infinity()
                      : op == NEXAR_MAX ? -std::numeric_limits<float>::infinity() : 0.0f;
      return fill_typed<uint16_t>(buf, count, float_to_half(v));
    }
    case NEXAR_BFLOAT16: {
      const float v = op == NEXAR_PROD ? 1.0f : op == NEXAR_MIN ? std::numeric_limits<float>::infinity()
                      : op == NEXAR_MAX ? -std::numeric_limits<float>::infinity() : 0.0f;
      return fill_typed<uint16_t>(buf, count, float_to_bf16(v));
    }
  }
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return bits_float(sign);  // +-0
  // Subnormal: value = mant * 2^-24, exact in float.
  const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
  return sign ? -v : v;
}

uint16_t float_to_half(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // quiet NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs >= 0x38800000u) {  // normal half range (>= 2^-14)
    // Rebias the exponent and round the 13 dropped bits to nearest even.
    const uint32_t v = abs - 0x38000000u;
    const uint32_t rounded = v + 0xfffu + ((v >> 13) & 1u);
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }
  if (abs < 0x33000000u) return sign;  // below half the smallest subnormal (2^-25): +-0
  // Subnormal half: shift the full significand right, rounding to nearest even.
  const uint32_t exp = abs >> 23;
  const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exp;  // 14..24
  const uint32_t half_ulp = 1u << (shift - 1);
  const uint32_t rest = mant & ((1u << shift) - 1u);
  uint32_t q = mant >> shift;
  if (rest > half_ulp || (rest == half_ulp && (q & 1u))) ++q;  // may carry into the smallest normal: fine
  return static_cast<uint16_t>(sign | q);
}

float bf16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bf16(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace nexar
