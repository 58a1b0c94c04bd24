// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "coll_test_util.h"

#include <cstdlib>
#include <cstring>
#include <random>

#include "core/dtype.h"
#include "core/params.h"
#include "core/reduce.h"

namespace nexar::coll::test {

const nexar_dtype_t kAllDtypes[10] = {NEXAR_INT8,    NEXAR_UINT8,    NEXAR_INT32,   NEXAR_UINT32,  NEXAR_INT64,
                                      NEXAR_UINT64,  NEXAR_FLOAT16,  NEXAR_BFLOAT16, NEXAR_FLOAT32, NEXAR_FLOAT64};
const nexar_op_t kAllOps[5] = {NEXAR_SUM, NEXAR_PROD, NEXAR_MIN, NEXAR_MAX, NEXAR_AVG};

namespace {

bool is_float(nexar_dtype_t d) {
  return d == NEXAR_FLOAT16 || d == NEXAR_BFLOAT16 || d == NEXAR_FLOAT32 || d == NEXAR_FLOAT64;
}

void put_float(unsigned char* p, nexar_dtype_t d, double v) {
  switch (d) {
    case NEXAR_FLOAT16: { uint16_t h = float_to_half(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    case NEXAR_BFLOAT16: { uint16_t h = float_to_bf16(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    case NEXAR_FLOAT32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

// Integers: stored modulo 2^bits (little-endian truncation of a 64-bit value).
void put_int(unsigned char* p, nexar_dtype_t d, uint64_t v) { std::memcpy(p, &v, dtype_size(d)); }

}  // namespace

Bytes make_data(int rank, size_t count, nexar_dtype_t dtype, nexar_op_t op, size_t first) {
  const size_t es = dtype_size(dtype);
  Bytes out(count * es);
  for (size_t k = 0; k < count; ++k) {
    const size_t i = first + k;
    unsigned char* p = out.data() + k * es;
    if (!is_float(dtype)) {
      // Large, distinct values: sums and products wrap, which the test must survive.
      put_int(p, dtype, (static_cast<uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ull + i * 0x632BE59BD9B4E019ull);
      continue;
    }
    if (op == NEXAR_PROD) {
      // +-2^e with e in {-1, 0, 1}: every partial product over <= 16 ranks is exact.
      const int e = static_cast<int>((static_cast<size_t>(rank) + i) % 3) - 1;
      const double sign = ((static_cast<size_t>(rank) * 7 + i) % 5 == 0) ? -1.0 : 1.0;
      put_float(p, dtype, sign * (e < 0 ? 0.5 : e > 0 ? 2.0 : 1.0));
      continue;
    }
    // Small integers: sums over 16 ranks stay exact even in bfloat16 (8 bits).
    const int range = dtype == NEXAR_BFLOAT16 ? 15 : 61;
    const int v = static_cast<int>((static_cast<size_t>(rank) * 37 + i * 11) % static_cast<size_t>(range)) - range / 2;
    put_float(p, dtype, v);
  }
  return out;
}

Bytes make_random(int rank, size_t count, nexar_dtype_t dtype, uint32_t seed) {
  const size_t es = dtype_size(dtype);
  Bytes out(count * es);
  std::mt19937_64 gen(seed * 1000003ull + static_cast<uint64_t>(rank));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (size_t k = 0; k < count; ++k) {
    if (is_float(dtype))
      put_float(out.data() + k * es, dtype, dist(gen) * 1000.0);
    else
      put_int(out.data() + k * es, dtype, gen());
  }
  return out;
}

Bytes reference_reduce(int lo, int hi, size_t count, nexar_dtype_t dtype, nexar_op_t op, size_t first) {
  Bytes acc = make_data(lo, count, dtype, op, first);
  for (int r = lo + 1; r < hi; ++r) {
    const Bytes x = make_data(r, count, dtype, op, first);
    reduce_with_isa(ReduceIsa::SCALAR, acc.data(), acc.data(), x.data(), count, dtype, op);
  }
  reduce_finalize(acc.data(), count, dtype, op, static_cast<size_t>(hi - lo));
  return acc;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  const char* old = std::getenv(name);
  had_old_ = old != nullptr;
  if (old) old_ = old;
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  params::reload();
}

ScopedEnv::~ScopedEnv() {
  if (had_old_)
    setenv(name_.c_str(), old_.c_str(), 1);
  else
    unsetenv(name_.c_str());
  params::reload();
}

std::string describe(nexar_dtype_t dtype, nexar_op_t op) { return std::string(dtype_name(dtype)) + "/" + op_name(op); }

}  // namespace nexar::coll::test
