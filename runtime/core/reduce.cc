// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/reduce.h"

#include <cstdint>
#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/dtype.h"
#include "core/reduce_table.h"

namespace nexar {
namespace {

const reduce_impl::KernelTable& table_for(ReduceIsa isa) {
  return isa == ReduceIsa::AVX2 ? reduce_impl::avx2_table() : reduce_impl::scalar_table();
}

const reduce_impl::KernelTable& best_table() {
  static const reduce_impl::KernelTable& t = table_for(reduce_best_isa());
  return t;
}

// The table's columns follow nexar_op_t without AVG (which reduces as SUM).
constexpr int op_column(nexar_op_t op) {
  const int v = static_cast<int>(op);
  return op == NEXAR_AVG ? 0 : v > NEXAR_AVG ? v - 1 : v;
}
static_assert(op_column(NEXAR_BXOR) == reduce_impl::kKernelColumns - 1, "the last op has the table's last column");

template <typename T, typename Wide>
void divide(void* buf, size_t count, size_t n) {
  unsigned char* p = static_cast<unsigned char*>(buf);
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof v);
    v = static_cast<T>(static_cast<Wide>(v) / static_cast<Wide>(n));
    std::memcpy(p + i * sizeof(T), &v, sizeof v);
  }
}

template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void divide16(void* buf, size_t count, size_t n) {
  unsigned char* p = static_cast<unsigned char*>(buf);
  const float d = static_cast<float>(n);
  for (size_t i = 0; i < count; ++i) {
    uint16_t v;
    std::memcpy(&v, p + 2 * i, 2);
    v = Narrow(Widen(v) / d);
    std::memcpy(p + 2 * i, &v, 2);
  }
}

}  // namespace

ReduceIsa reduce_best_isa() {
  static const ReduceIsa best = reduce_isa_supported(ReduceIsa::AVX2) ? ReduceIsa::AVX2 : ReduceIsa::SCALAR;
  return best;
}

bool reduce_isa_supported(ReduceIsa isa) {
  if (isa == ReduceIsa::SCALAR) return true;
#if defined(__x86_64__) || defined(__i386__)
  // avx2 also covers the OS saving the AVX state; F16C is read from CPUID leaf 1
  // (clang's __builtin_cpu_supports does not know "f16c").
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  return __builtin_cpu_supports("avx2") && f16c;
#else
  return false;
#endif
}

const char* reduce_isa_name(ReduceIsa isa) { return isa == ReduceIsa::AVX2 ? "avx2" : "scalar"; }

void reduce(void* out, const void* a, const void* b, size_t count, nexar_dtype_t dtype, nexar_op_t op) {
  if (count == 0) return;
  best_table().k[dtype][op_column(op)](out, a, b, count);
}

void reduce_with_isa(ReduceIsa isa, void* out, const void* a, const void* b, size_t count, nexar_dtype_t dtype,
                     nexar_op_t op) {
  if (count == 0) return;
  table_for(isa).k[dtype][op_column(op)](out, a, b, count);
}

void reduce_finalize(void* buf, size_t count, nexar_dtype_t dtype, nexar_op_t op, size_t n) {
  if (op != NEXAR_AVG || count == 0) return;
  switch (dtype) {
    case NEXAR_INT8: return divide<int8_t, int64_t>(buf, count, n);
    case NEXAR_UINT8: return divide<uint8_t, uint64_t>(buf, count, n);
    case NEXAR_INT32: return divide<int32_t, int64_t>(buf, count, n);
    case NEXAR_UINT32: return divide<uint32_t, uint64_t>(buf, count, n);
    case NEXAR_INT64: return divide<int64_t, int64_t>(buf, count, n);
    case NEXAR_UINT64: return divide<uint64_t, uint64_t>(buf, count, n);
    case NEXAR_FLOAT32: return divide<float, float>(buf, count, n);
    case NEXAR_FLOAT64: return divide<double, double>(buf, count, n);
    case NEXAR_FLOAT16: return divide16<half_to_float, float_to_half>(buf, count, n);
    case NEXAR_BFLOAT16: return divide16<bf16_to_float, float_to_bf16>(buf, count, n);
  }
}

}  // namespace nexar
