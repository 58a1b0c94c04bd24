// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "e2e_reference.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace e2e {

const nexar_dtype_t kDtypes[10] = {NEXAR_INT8,   NEXAR_UINT8,   NEXAR_INT32,    NEXAR_UINT32,  NEXAR_INT64,
                                   NEXAR_UINT64, NEXAR_FLOAT16, NEXAR_BFLOAT16, NEXAR_FLOAT32, NEXAR_FLOAT64};
const nexar_op_t kOps[5] = {NEXAR_SUM, NEXAR_PROD, NEXAR_MIN, NEXAR_MAX, NEXAR_AVG};
const nexar_op_t kBitwiseOps[3] = {NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR};

size_t dtype_bytes(nexar_dtype_t d) {
  switch (d) {
    case NEXAR_INT8: case NEXAR_UINT8: return 1;
    case NEXAR_FLOAT16: case NEXAR_BFLOAT16: return 2;
    case NEXAR_INT32: case NEXAR_UINT32: case NEXAR_FLOAT32: return 4;
    default: return 8;
  }
}

const char* dtype_str(nexar_dtype_t d) {
  static const char* names[] = {"int8",    "uint8",    "int32",   "uint32",  "int64",
                                "uint64",  "float16",  "bfloat16", "float32", "float64"};
  return d >= NEXAR_INT8 && d <= NEXAR_FLOAT64 ? names[d] : "?";
}

const char* op_str(nexar_op_t op) {
  static const char* names[] = {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"};
  return op >= NEXAR_SUM && op <= NEXAR_BXOR ? names[op] : "?";
}

bool is_float(nexar_dtype_t d) { return d >= NEXAR_FLOAT16; }

namespace {

// A binary format with `man` stored significand bits and exponents [emin, emax].
struct SmallFloat {
  int man, emin, emax;
};
constexpr SmallFloat kHalf{10, -14, 15};
constexpr SmallFloat kBf16{7, -126, 127};

double decode(uint16_t bits, SmallFloat f) {
  const int ebits = f.emax == 15 ? 5 : 8;
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  const unsigned e = (bits >> f.man) & ((1u << ebits) - 1u);
  const unsigned m = bits & ((1u << f.man) - 1u);
  if (e == (1u << ebits) - 1u) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, f.emin - f.man);
  return sign * std::ldexp((1u << f.man) + m, static_cast<int>(e) - f.emax - f.man);
}

// Rounds v to the format (nearest, ties to even) and encodes it.
uint16_t encode(double v, SmallFloat f) {
  const int ebits = f.emax == 15 ? 5 : 8;
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0;
  const uint16_t inf = static_cast<uint16_t>(((1u << ebits) - 1u) << f.man);
  if (std::isnan(v)) return static_cast<uint16_t>(sign | inf | (1u << (f.man - 1)));
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int e2;
  std::frexp(a, &e2);
  const int e = std::max(e2 - 1, f.emin);
  const double ulp = std::ldexp(1.0, e - f.man);
  a = std::nearbyint(a / ulp) * ulp;  // exact scaling; the default mode rounds ties to even
  if (a >= std::ldexp(1.0, f.emax + 1)) return sign | inf;
  if (a < std::ldexp(1.0, f.emin))  // subnormal (or rounded up to the smallest normal: same encoding)
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(a / std::ldexp(1.0, f.emin - f.man)));
  std::frexp(a, &e2);
  const int E = e2 - 1;
  const unsigned m = static_cast<unsigned>(a / std::ldexp(1.0, E - f.man)) - (1u << f.man);
  return static_cast<uint16_t>(sign | (static_cast<unsigned>(E + f.emax) << f.man) | m);
}

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
uint64_t key(uint64_t seed, int rank, uint64_t i) { return mix(mix(seed * 1000003ull + static_cast<uint64_t>(rank)) ^ i); }

uint64_t load_u(const unsigned char* p, size_t es) {
  uint64_t v = 0;
  std::memcpy(&v, p, es);  // little-endian
  return v;
}
int64_t load_s(const unsigned char* p, size_t es) {
  const uint64_t u = load_u(p, es);
  const unsigned shift = static_cast<unsigned>(64 - 8 * es);
  return static_cast<int64_t>(u << shift) >> shift;
}
void store_u(unsigned char* p, size_t es, uint64_t v) { std::memcpy(p, &v, es); }

double load_f(const unsigned char* p, nexar_dtype_t d) {
  switch (d) {
    case NEXAR_FLOAT16: return decode(static_cast<uint16_t>(load_u(p, 2)), kHalf);
    case NEXAR_BFLOAT16: return decode(static_cast<uint16_t>(load_u(p, 2)), kBf16);
    case NEXAR_FLOAT32: { float f; std::memcpy(&f, p, 4); return f; }
    default: { double f; std::memcpy(&f, p, 8); return f; }
  }
}
// Stores v rounded once to the type.
void store_f(unsigned char* p, nexar_dtype_t d, double v) {
  switch (d) {
    case NEXAR_FLOAT16: store_u(p, 2, encode(v, kHalf)); break;
    case NEXAR_BFLOAT16: store_u(p, 2, encode(v, kBf16)); break;
    case NEXAR_FLOAT32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

bool is_signed(nexar_dtype_t d) { return d == NEXAR_INT8 || d == NEXAR_INT32 || d == NEXAR_INT64; }

}  // namespace

double half_bits_to_double(uint16_t h) { return decode(h, kHalf); }
uint16_t double_to_half_bits(double v) { return encode(v, kHalf); }
double bf16_bits_to_double(uint16_t b) { return decode(b, kBf16); }
uint16_t double_to_bf16_bits(double v) { return encode(v, kBf16); }

Bytes make_input(int rank, size_t first, size_t count, nexar_dtype_t d, nexar_op_t op, DataKind kind, uint32_t seed) {
  const size_t es = dtype_bytes(d);
  Bytes out(count * es);
  for (size_t k = 0; k < count; ++k) {
    const uint64_t i = first + k, h = key(seed, rank, i);
    unsigned char* p = out.data() + k * es;
    if (!is_float(d)) {
      store_u(p, es, h);  // anything: integer reductions wrap
    } else if (kind == DataKind::RANDOM) {
      // |v| in [2^-7, 2^6): sums need rounding, products stay finite in every type.
      const double mant = 1.0 + static_cast<double>(h >> 11) * 0x1p-53;
      const int e = static_cast<int>((h >> 3) % 13) - 7;
      store_f(p, d, ((h & 1) ? -1.0 : 1.0) * std::ldexp(mant, e));
    } else if (op == NEXAR_PROD) {
      // +-2^e, e cycling over ranks: any product over <= 16 ranks is within 2^+-6.
      const int e = static_cast<int>((static_cast<uint64_t>(rank) + i) % 3) - 1;
      store_f(p, d, ((h & 1) ? -1.0 : 1.0) * std::ldexp(1.0, e));
    } else {
      // Small integers: sums over <= 16 ranks are exact even in bfloat16.
      const int range = d == NEXAR_BFLOAT16 ? 15 : 61;
      store_f(p, d, static_cast<double>(static_cast<int>(h % static_cast<uint64_t>(range)) - range / 2));
    }
  }
  return out;
}

Bytes make_bytes(int rank, int block, size_t nbytes, uint32_t seed) {
  Bytes out(nbytes);
  uint64_t h = 0;
  for (size_t i = 0; i < nbytes; ++i) {
    if (i % 8 == 0) h = key(seed + 77, rank, (static_cast<uint64_t>(block) << 40) ^ (i / 8));
    out[i] = static_cast<unsigned char>(h >> (8 * (i % 8)));
  }
  return out;
}

void combine(unsigned char* acc, const unsigned char* x, size_t count, nexar_dtype_t d, nexar_op_t op) {
  const size_t es = dtype_bytes(d);
  for (size_t k = 0; k < count; ++k) {
    unsigned char* a = acc + k * es;
    const unsigned char* b = x + k * es;
    if (!is_float(d)) {
      const uint64_t ua = load_u(a, es), ub = load_u(b, es);
      const int64_t sa = load_s(a, es), sb = load_s(b, es);
      const bool less = is_signed(d) ? sb < sa : ub < ua;  // b < a
      uint64_t r = ua;
      switch (op) {
        case NEXAR_SUM: case NEXAR_AVG: r = ua + ub; break;
        case NEXAR_PROD: r = ua * ub; break;
        case NEXAR_MIN: r = less ? ub : ua; break;
        case NEXAR_MAX: r = (!less && ua != ub) ? ub : ua; break;
        case NEXAR_BAND: r = ua & ub; break;
        case NEXAR_BOR: r = ua | ub; break;
        case NEXAR_BXOR: r = ua ^ ub; break;
      }
      store_u(a, es, r);
      continue;
    }
    const double fa = load_f(a, d), fb = load_f(b, d);
    double r = fa;
    switch (op) {
      case NEXAR_SUM: case NEXAR_AVG: r = fa + fb; break;  // exact for 16-bit types, innocuous rounding otherwise
      case NEXAR_PROD: r = fa * fb; break;
      case NEXAR_MIN: r = std::isnan(fa) ? fa : std::isnan(fb) ? fb : (fa <= fb ? fa : fb); break;
      case NEXAR_MAX: r = std::isnan(fa) ? fa : std::isnan(fb) ? fb : (fa >= fb ? fa : fb); break;
      default: break;  // the bitwise ops take no floats
    }
    if (d == NEXAR_FLOAT64) {
      std::memcpy(a, &r, 8);
    } else if ((op == NEXAR_MIN || op == NEXAR_MAX) && r == fa) {
      continue;  // keep the operand's exact bits
    } else if ((op == NEXAR_MIN || op == NEXAR_MAX) && r == fb) {
      std::memcpy(a, b, es);
    } else {
      store_f(a, d, r);
    }
  }
}

void finish_avg(unsigned char* buf, size_t count, nexar_dtype_t d, nexar_op_t op, size_t n) {
  if (op != NEXAR_AVG) return;
  const size_t es = dtype_bytes(d);
  for (size_t k = 0; k < count; ++k) {
    unsigned char* p = buf + k * es;
    if (!is_float(d))
      store_u(p, es, is_signed(d) ? static_cast<uint64_t>(load_s(p, es) / static_cast<int64_t>(n)) : load_u(p, es) / n);
    else
      store_f(p, d, load_f(p, d) / static_cast<double>(n));
  }
}

Bytes identity(size_t count, nexar_dtype_t d, nexar_op_t op) {
  const size_t es = dtype_bytes(d);
  Bytes out(count * es);
  for (size_t k = 0; k < count; ++k) {
    unsigned char* p = out.data() + k * es;
    if (is_float(d)) {
      store_f(p, d, op == NEXAR_PROD ? 1.0 : op == NEXAR_MIN ? INFINITY : op == NEXAR_MAX ? -INFINITY : 0.0);
      continue;
    }
    const uint64_t top = uint64_t{1} << (8 * es - 1);  // the sign bit's value
    uint64_t v = 0;
    if (op == NEXAR_PROD) v = 1;
    if (op == NEXAR_MIN) v = is_signed(d) ? top - 1 : ~uint64_t{0};
    if (op == NEXAR_MAX) v = is_signed(d) ? top : 0;
    if (op == NEXAR_BAND) v = ~uint64_t{0};  // store_u keeps the type's bytes: all set
    store_u(p, es, v);
  }
  return out;
}

Bytes reference(int lo, int hi, size_t first, size_t count, nexar_dtype_t d, nexar_op_t op, DataKind kind,
                uint32_t seed) {
  Bytes acc = make_input(lo, first, count, d, op, kind, seed);
  for (int r = lo + 1; r < hi; ++r) {
    const Bytes x = make_input(r, first, count, d, op, kind, seed);
    combine(acc.data(), x.data(), count, d, op);
  }
  finish_avg(acc.data(), count, d, op, static_cast<size_t>(hi - lo));
  return acc;
}

std::string first_difference(const unsigned char* got, const unsigned char* want, size_t nbytes, size_t elem) {
  for (size_t i = 0; i < nbytes; ++i)
    if (got[i] != want[i]) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "byte %zu of %zu (element %zu) is 0x%02x, want 0x%02x", i, nbytes, i / elem,
                    got[i], want[i]);
      return buf;
    }
  return "";
}

uint64_t hash_bytes(const unsigned char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

}  // namespace e2e
