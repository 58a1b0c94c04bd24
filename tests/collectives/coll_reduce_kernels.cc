// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Unit tests of the local reduction kernels (core/reduce.h) and dtype conversions
// (core/dtype.h): every dtype x op (bitwise ones on the integers) against an independent element-wise reference, odd
// lengths, unaligned pointers, each ISA against the scalar one, float16/bfloat16
// rounding edges, NaN/inf behaviour, integer wrap-around and AVG division; and the
// piecewise copy (collectives/coll_util.h copy_bytes) and the copy around the cache
// (collectives/stream_copy.h copy_out) against memmove.
#include <catch.hpp>
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "coll_test_util.h"
#include "collectives/coll_util.h"
#include "collectives/stream_copy.h"
#include "core/cores.h"
#include "core/dtype.h"
#include "core/reduce.h"

using namespace nexar;
using nexar::coll::test::Bytes;
using nexar::coll::test::describe;
using nexar::coll::test::kAllDtypes;
using nexar::coll::test::kAllOps;

namespace {

bool is_float(nexar_dtype_t d) { return d == NEXAR_FLOAT16 || d == NEXAR_BFLOAT16 || d == NEXAR_FLOAT32 || d == NEXAR_FLOAT64; }
bool is_signed_int(nexar_dtype_t d) { return d == NEXAR_INT8 || d == NEXAR_INT32 || d == NEXAR_INT64; }

double get_float(const unsigned char* p, nexar_dtype_t d) {
  uint16_t h;
  float f;
  double x;
  switch (d) {
    case NEXAR_FLOAT16: std::memcpy(&h, p, 2); return half_to_float(h);
    case NEXAR_BFLOAT16: std::memcpy(&h, p, 2); return bf16_to_float(h);
    case NEXAR_FLOAT32: std::memcpy(&f, p, 4); return f;
    default: std::memcpy(&x, p, 8); return x;
  }
}

void put_float(unsigned char* p, nexar_dtype_t d, double v) {
  // Through float for the 16-bit types: the kernels' documented semantics.
  uint16_t h;
  float f = static_cast<float>(v);
  switch (d) {
    case NEXAR_FLOAT16: h = float_to_half(f); std::memcpy(p, &h, 2); break;
    case NEXAR_BFLOAT16: h = float_to_bf16(f); std::memcpy(p, &h, 2); break;
    case NEXAR_FLOAT32: std::memcpy(p, &f, 4); break;
    default: std::memcpy(p, &v, 8); break;
  }
}

uint64_t get_uint(const unsigned char* p, nexar_dtype_t d) {
  uint64_t v = 0;
  std::memcpy(&v, p, dtype_size(d));
  return v;
}

int64_t get_sint(const unsigned char* p, nexar_dtype_t d) {
  const size_t bits = dtype_size(d) * 8;
  uint64_t u = get_uint(p, d);
  if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(u);
}

// One element of a op b, computed independently of the kernels.
void reference_one(unsigned char* out, const unsigned char* a, const unsigned char* b, nexar_dtype_t d, nexar_op_t op) {
  const size_t es = dtype_size(d);
  if (is_float(d)) {
    const double x = get_float(a, d), y = get_float(b, d);
    double r = 0;
    // float32 arithmetic for the narrow types (sums of two floats are exact in double).
    const bool narrow = d != NEXAR_FLOAT64;
    switch (op) {
      case NEXAR_SUM: case NEXAR_AVG: r = narrow ? static_cast<double>(static_cast<float>(x + y)) : x + y; break;
      case NEXAR_PROD: r = narrow ? static_cast<double>(static_cast<float>(x * y)) : x * y; break;
      case NEXAR_MIN: r = std::isnan(x) ? x : std::isnan(y) ? y : (x <= y ? x : y); break;
      case NEXAR_MAX: r = std::isnan(x) ? x : std::isnan(y) ? y : (x >= y ? x : y); break;
      default: break;  // no bitwise ops on floats (ops_of)
    }
    if ((op == NEXAR_MIN || op == NEXAR_MAX) && !std::isnan(r)) {
      std::memcpy(out, (r == x && !(x == 0 && std::signbit(x) != std::signbit(r))) ? a : b, es);
      return;
    }
    put_float(out, d, r);
    return;
  }
  uint64_t r = 0;
  const uint64_t ux = get_uint(a, d), uy = get_uint(b, d);
  const int64_t sx = get_sint(a, d), sy = get_sint(b, d);
  const bool sgn = is_signed_int(d);
  switch (op) {
    case NEXAR_SUM: case NEXAR_AVG: r = ux + uy; break;
    case NEXAR_PROD: r = ux * uy; break;
    case NEXAR_MIN: r = sgn ? (sy < sx ? uy : ux) : (uy < ux ? uy : ux); break;
    case NEXAR_MAX: r = sgn ? (sy > sx ? uy : ux) : (uy > ux ? uy : ux); break;
    case NEXAR_BAND: r = ux & uy; break;
    case NEXAR_BOR: r = ux | uy; break;
    case NEXAR_BXOR: r = ux ^ uy; break;
  }
  std::memcpy(out, &r, es);
}

// The ops defined on d: the arithmetic ones on every type, the bitwise ones on integers.
std::vector<nexar_op_t> ops_of(nexar_dtype_t d) {
  std::vector<nexar_op_t> ops(std::begin(kAllOps), std::end(kAllOps));
  if (!is_float(d)) ops.insert(ops.end(), {NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR});
  return ops;
}

Bytes random_values(size_t count, nexar_dtype_t d, std::mt19937_64& gen, bool specials) {
  const size_t es = dtype_size(d);
  Bytes out(count * es);
  std::uniform_real_distribution<double> mag(-8, 8);
  std::uniform_int_distribution<int> pick(0, 15);
  for (size_t i = 0; i < count; ++i) {
    unsigned char* p = out.data() + i * es;
    if (!is_float(d)) {
      const uint64_t v = gen();
      std::memcpy(p, &v, es);
      continue;
    }
    double v = std::ldexp(mag(gen), static_cast<int>(mag(gen)));
    if (specials) {
      switch (pick(gen)) {
        case 0: v = std::numeric_limits<double>::quiet_NaN(); break;
        case 1: v = std::numeric_limits<double>::infinity(); break;
        case 2: v = -std::numeric_limits<double>::infinity(); break;
        case 3: v = -0.0; break;
        case 4: v = 0.0; break;
        case 5: v = 1e-7; break;   // subnormal in float16
        case 6: v = 70000; break;  // overflows float16
        default: break;
      }
    }
    put_float(p, d, v);
  }
  return out;
}

__attribute__((target("f16c"))) uint16_t f16c_half(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

}  // namespace

TEST_CASE("every dtype x op matches an element-wise reference, any length and alignment", "[reduce]") {
  std::mt19937_64 gen(42);
  for (nexar_dtype_t d : kAllDtypes)
    for (nexar_op_t op : ops_of(d))
      for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{31}, size_t{33}, size_t{1023}})
        for (size_t misalign : {size_t{0}, size_t{1}, size_t{3}}) {
          const size_t es = dtype_size(d);
          const Bytes a = random_values(count, d, gen, false), b = random_values(count, d, gen, false);
          Bytes abuf(count * es + 8), bbuf(count * es + 8), obuf(count * es + 8, 0xAB), want(count * es);
          if (count > 0) {
            std::memcpy(abuf.data() + misalign, a.data(), a.size());
            std::memcpy(bbuf.data() + (misalign * 2) % 5, b.data(), b.size());
          }
          for (size_t i = 0; i < count; ++i) reference_one(&want[i * es], &a[i * es], &b[i * es], d, op);
          reduce(obuf.data() + misalign, abuf.data() + misalign, bbuf.data() + (misalign * 2) % 5, count, d, op);
          INFO(describe(d, op) << " count " << count << " misalign " << misalign);
          REQUIRE(Bytes(obuf.begin() + misalign, obuf.begin() + misalign + count * es) == want);
          for (size_t i = 0; i < misalign; ++i) REQUIRE(obuf[i] == 0xAB);  // nothing written before
          REQUIRE(obuf[misalign + count * es] == 0xAB);                     // nor after
          // In place (out == a).
          Bytes inplace = a;
          reduce(inplace.data(), inplace.data(), b.data(), count, d, op);
          REQUIRE(inplace == want);
        }
}

TEST_CASE("every kernel set gives the scalar set's bits, NaN and inf included", "[reduce]") {
  INFO("best ISA: " << reduce_isa_name(reduce_best_isa()));
  if (!reduce_isa_supported(ReduceIsa::AVX2)) {
    WARN("CPU lacks AVX2/F16C: only the scalar kernels are tested");
    return;
  }
  std::mt19937_64 gen(7);
  for (nexar_dtype_t d : kAllDtypes)
    for (nexar_op_t op : ops_of(d)) {
      const size_t count = 1000 + static_cast<size_t>(d);
      const Bytes a = random_values(count, d, gen, true), b = random_values(count, d, gen, true);
      Bytes x(a.size()), y(a.size());
      reduce_with_isa(ReduceIsa::SCALAR, x.data(), a.data(), b.data(), count, d, op);
      reduce_with_isa(ReduceIsa::AVX2, y.data(), a.data(), b.data(), count, d, op);
      INFO(describe(d, op));
      REQUIRE(x == y);
    }
}

TEST_CASE("float16 conversions: exhaustive round trip, ties to even, overflow, subnormals", "[reduce][fp16]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t back = float_to_half(half_to_float(static_cast<uint16_t>(h)));
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    if (nan)
      REQUIRE(((back & 0x7c00) == 0x7c00 && (back & 0x3ff) != 0));
    else
      REQUIRE(back == h);
  }
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);       // tie -> even (1.0)
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);   // tie -> even (up)
  CHECK(float_to_half(65504.0f) == 0x7bff);
  CHECK(float_to_half(65519.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);  // tie at the top rounds to inf
  CHECK(float_to_half(-1e9f) == 0xfc00);
  CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);  // tie -> even (0)
  CHECK(float_to_half(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);  // 1.5 ulp: tie -> even (2)
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(float_to_half(std::ldexp(1023.5f, -24)) == 0x0400);  // rounds up into the smallest normal
  if (reduce_isa_supported(ReduceIsa::AVX2)) {
    // The software conversion must agree with F16C everywhere (the two kernel sets mix them).
    std::mt19937 gen(3);
    for (int i = 0; i < 2000000; ++i) {
      const uint32_t u = gen();
      float f;
      std::memcpy(&f, &u, 4);
      const uint16_t hw = f16c_half(f);
      if (hw != float_to_half(f)) FAIL("float bits " << u << ": F16C " << hw << " software " << float_to_half(f));
    }
  }
}

TEST_CASE("bfloat16 conversions round to nearest even and keep NaN", "[reduce][bf16]") {
  CHECK(float_to_bf16(1.0f) == 0x3f80);
  float f;
  uint32_t u = 0x3f808000;  // exactly halfway between 0x3f80 and 0x3f81
  std::memcpy(&f, &u, 4);
  CHECK(float_to_bf16(f) == 0x3f80);
  u = 0x3f818000;  // halfway, odd below: rounds up
  std::memcpy(&f, &u, 4);
  CHECK(float_to_bf16(f) == 0x3f82);
  u = 0x7f7fffff;  // FLT_MAX rounds to inf
  std::memcpy(&f, &u, 4);
  CHECK(float_to_bf16(f) == 0x7f80);
  u = 0x7f800001;  // signalling NaN with a low payload stays NaN
  std::memcpy(&f, &u, 4);
  const uint16_t b = float_to_bf16(f);
  CHECK(((b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0));
  for (uint32_t h = 0; h < 0x10000; ++h)
    if (!((h & 0x7f80) == 0x7f80 && (h & 0x7f))) REQUIRE(float_to_bf16(bf16_to_float(static_cast<uint16_t>(h))) == h);
}

TEST_CASE("NaN and inf: sums follow IEEE, MIN/MAX propagate NaN from either side", "[reduce]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  float a[4] = {nan, 1.0f, inf, -0.0f}, b[4] = {1.0f, nan, -inf, 0.0f}, o[4];
  reduce(o, a, b, 4, NEXAR_FLOAT32, NEXAR_MIN);
  CHECK(std::isnan(o[0]));
  CHECK(std::isnan(o[1]));
  CHECK(o[2] == -inf);
  CHECK(std::signbit(o[3]));  // tie: the first operand
  reduce(o, a, b, 4, NEXAR_FLOAT32, NEXAR_MAX);
  CHECK(std::isnan(o[0]));
  CHECK(std::isnan(o[1]));
  CHECK(o[2] == inf);
  reduce(o, a, b, 4, NEXAR_FLOAT32, NEXAR_SUM);
  CHECK(std::isnan(o[0]));
  CHECK(std::isnan(o[2]));  // inf + -inf
  uint16_t h[2] = {float_to_half(60000.0f), float_to_half(nan)}, g[2] = {float_to_half(60000.0f), float_to_half(2.0f)}, r[2];
  reduce(r, h, g, 2, NEXAR_FLOAT16, NEXAR_SUM);
  CHECK(r[0] == 0x7c00);  // overflow to inf
  CHECK(std::isnan(half_to_float(r[1])));
}

TEST_CASE("integers wrap and compare with their signedness", "[reduce]") {
  int8_t a8[3] = {127, -128, -1}, b8[3] = {1, -1, 1}, o8[3];
  reduce(o8, a8, b8, 3, NEXAR_INT8, NEXAR_SUM);
  CHECK(o8[0] == -128);
  CHECK(o8[1] == 127);
  CHECK(o8[2] == 0);
  reduce(o8, a8, b8, 3, NEXAR_INT8, NEXAR_MIN);
  CHECK(o8[1] == -128);
  CHECK(o8[2] == -1);
  uint8_t u8a[1] = {255}, u8b[1] = {1}, u8o[1];
  reduce(u8o, u8a, u8b, 1, NEXAR_UINT8, NEXAR_MAX);
  CHECK(u8o[0] == 255);
  int64_t a64[1] = {std::numeric_limits<int64_t>::max()}, b64[1] = {3}, o64[1];
  reduce(o64, a64, b64, 1, NEXAR_INT64, NEXAR_PROD);
  CHECK(o64[0] == std::numeric_limits<int64_t>::max() - 2);  // (2^63 - 1) * 3 mod 2^64
  int32_t a32[1] = {std::numeric_limits<int32_t>::min()}, b32[1] = {-1}, o32[1];
  reduce(o32, a32, b32, 1, NEXAR_INT32, NEXAR_PROD);
  CHECK(o32[0] == std::numeric_limits<int32_t>::min());
}

TEST_CASE("AVG divides once: integer division toward zero, floats through float32", "[reduce]") {
  int32_t i[3] = {-7, 7, std::numeric_limits<int32_t>::min()};
  reduce_finalize(i, 3, NEXAR_INT32, NEXAR_AVG, 2);
  CHECK(i[0] == -3);
  CHECK(i[1] == 3);
  CHECK(i[2] == std::numeric_limits<int32_t>::min() / 2);
  uint8_t u[1] = {200};
  reduce_finalize(u, 1, NEXAR_UINT8, NEXAR_AVG, 300);  // n beyond the type's range
  CHECK(u[0] == 0);
  uint16_t h[1] = {float_to_half(1.0f)};
  reduce_finalize(h, 1, NEXAR_FLOAT16, NEXAR_AVG, 3);
  CHECK(h[0] == float_to_half(1.0f / 3.0f));
  float f[1] = {1.0f};
  reduce_finalize(f, 1, NEXAR_FLOAT32, NEXAR_SUM, 3);  // not AVG: untouched
  CHECK(f[0] == 1.0f);
}

TEST_CASE("identity elements", "[reduce]") {
  int8_t i8[1];
  fill_identity(i8, 1, NEXAR_INT8, NEXAR_MIN);
  CHECK(i8[0] == 127);
  fill_identity(i8, 1, NEXAR_INT8, NEXAR_MAX);
  CHECK(i8[0] == -128);
  uint64_t u64[1];
  fill_identity(u64, 1, NEXAR_UINT64, NEXAR_PROD);
  CHECK(u64[0] == 1);
  float f[1];
  fill_identity(f, 1, NEXAR_FLOAT32, NEXAR_MAX);
  CHECK(f[0] == -std::numeric_limits<float>::infinity());
  uint16_t h[1];
  fill_identity(h, 1, NEXAR_BFLOAT16, NEXAR_MIN);
  CHECK(h[0] == 0x7f80);
  fill_identity(h, 1, NEXAR_FLOAT16, NEXAR_AVG);
  CHECK(h[0] == 0);
  fill_identity(i8, 1, NEXAR_INT8, NEXAR_BAND);
  CHECK(i8[0] == -1);
  fill_identity(u64, 1, NEXAR_UINT64, NEXAR_BAND);
  CHECK(u64[0] == ~uint64_t{0});
  fill_identity(u64, 1, NEXAR_UINT64, NEXAR_BOR);
  CHECK(u64[0] == 0);
  int32_t i32[1] = {5};
  fill_identity(i32, 1, NEXAR_INT32, NEXAR_BXOR);
  CHECK(i32[0] == 0);
}

TEST_CASE("the bitwise ops are defined on the integer dtypes only", "[reduce]") {
  for (nexar_dtype_t d : kAllDtypes)
    for (nexar_op_t op : {NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR}) {
      INFO(describe(d, op));
      CHECK(op_valid(op));
      CHECK(op_applies_to(op, d) == !is_float(d));
    }
  for (nexar_op_t op : kAllOps)
    for (nexar_dtype_t d : kAllDtypes) CHECK(op_applies_to(op, d));
  CHECK(std::string(op_name(NEXAR_BXOR)) == "bxor");
}

// copy_bytes copies in pieces: every byte lands where memmove puts it, across piece
// boundaries, in a last short piece, and where the ranges overlap either way.
TEST_CASE("copy_bytes equals memmove, pieces and overlaps included", "[copy]") {
  using nexar::coll::copy_bytes;
  using nexar::coll::kCopyPiece;
  const size_t n = 3 * kCopyPiece + 77, room = n + 2 * kCopyPiece + 64;
  std::vector<unsigned char> base(room);
  for (size_t i = 0; i < room; ++i) base[i] = static_cast<unsigned char>(i * 131 + i / 251);
  const size_t src = kCopyPiece + 16;
  for (long shift : {-static_cast<long>(kCopyPiece) - 3, -5L, 0L, 5L, static_cast<long>(kCopyPiece) + 3}) {
    for (size_t len : {size_t{1}, kCopyPiece, kCopyPiece + 1, n}) {
      std::vector<unsigned char> got = base, want = base;
      const size_t dst = static_cast<size_t>(static_cast<long>(src) + shift);
      copy_bytes(got.data() + dst, got.data() + src, len);
      std::memmove(want.data() + dst, want.data() + src, len);
      INFO("shift " << shift << " len " << len);
      CHECK(got == want);
    }
  }
  std::vector<unsigned char> from(base.begin(), base.begin() + static_cast<long>(n)), to(n);
  copy_bytes(to.data(), from.data(), n);  // apart
  CHECK(to == from);
}

// copy_out around the cache: every byte lands where memmove puts it whatever the two
// pointers' alignment and the length's tail; overlapping ranges fall back to copy_bytes.
TEST_CASE("copy_out equals memmove, streamed or not, any alignment, overlaps included", "[copy]") {
  using nexar::coll::copy_out;
  const size_t n = (size_t{1} << 16) + 77, room = n + 256;
  std::vector<unsigned char> base(room);
  for (size_t i = 0; i < room; ++i) base[i] = static_cast<unsigned char>(i * 131 + i / 251);
  for (bool stream : {true, false})
    for (size_t src : {size_t{0}, size_t{3}, size_t{64}})
      for (size_t dst_off : {size_t{0}, size_t{1}, size_t{17}, size_t{128}})
        for (size_t len : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096} + 63, n - 128}) {
          std::vector<unsigned char> from(base), got(room, 0), want(room, 0);
          copy_out(got.data() + dst_off, from.data() + src, len, stream);
          std::memmove(want.data() + dst_off, from.data() + src, len);
          INFO("stream " << stream << " src " << src << " dst " << dst_off << " len " << len);
          CHECK(got == want);
        }
  for (long shift : {-5L, 5L}) {  // within one buffer: memmove's result
    std::vector<unsigned char> got = base, want = base;
    const size_t src = 64, dst = static_cast<size_t>(64 + shift), len = n;
    copy_out(got.data() + dst, got.data() + src, len, true);
    std::memmove(want.data() + dst, want.data() + src, len);
    INFO("shift " << shift);
    CHECK(got == want);
  }
}

TEST_CASE("copies go around the cache only past the last-level cache", "[copy]") {
  const size_t llc = nexar::last_level_cache_bytes();
  if (llc == 0) return;  // nothing to compare against: never streams
  CHECK_FALSE(nexar::coll::streams_past_cache(static_cast<double>(llc)));
#if defined(__x86_64__)
  CHECK(nexar::coll::streams_past_cache(2.0 * static_cast<double>(llc)));
#endif
}
