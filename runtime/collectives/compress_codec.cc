// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/compress_codec.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/dtype.h"

namespace nexar::coll::compress {
namespace {

// How each dtype is stored and added up.
struct F32 {
  using Store = float;
  using Acc = float;
  static Acc load(Store s) { return s; }
  static Store store(Acc a) { return a; }
};
struct F64 {
  using Store = double;
  using Acc = double;
  static Acc load(Store s) { return s; }
  static Store store(Acc a) { return a; }
};
struct F16 {
  using Store = uint16_t;
  using Acc = float;
  static Acc load(Store s) { return half_to_float(s); }
  static Store store(Acc a) { return float_to_half(a); }
};
struct BF16 {
  using Store = uint16_t;
  using Acc = float;
  static Acc load(Store s) { return bf16_to_float(s); }
  static Store store(Acc a) { return float_to_bf16(a); }
};

// Calls fn with the dtype's traits (dtype checked by the caller).
template <class Fn>
void with_type(nexar_dtype_t dtype, Fn&& fn) {
  switch (dtype) {
    case NEXAR_FLOAT64:
      fn(F64{});
      break;
    case NEXAR_FLOAT16:
      fn(F16{});
      break;
    case NEXAR_BFLOAT16:
      fn(BF16{});
      break;
    default:
      fn(F32{});
  }
}

const char* method_name(uint32_t m) { return m == NEXAR_COMPRESS_TOPK ? "top-k" : m == NEXAR_COMPRESS_RANDOMK ? "random-k" : "unknown"; }

}  // namespace

bool dtype_supported(nexar_dtype_t dtype) {
  return dtype == NEXAR_FLOAT32 || dtype == NEXAR_FLOAT64 || dtype == NEXAR_FLOAT16 || dtype == NEXAR_BFLOAT16;
}

void add_residual(const void* send, const void* residual, void* v, size_t count, nexar_dtype_t dtype) {
  with_type(dtype, [&](auto t) {
    using T = decltype(t);
    using S = typename T::Store;
    const S* s = static_cast<const S*>(send);
    const S* r = static_cast<const S*>(residual);
    S* out = static_cast<S*>(v);
    for (size_t i = 0; i < count; ++i) {
      const auto ri = T::load(r[i]);
      out[i] = ri == 0 ? s[i] : T::store(T::load(s[i]) + ri);
    }
  });
}

void magnitudes(const void* v, size_t count, nexar_dtype_t dtype, std::vector<float>* f32, std::vector<double>* f64) {
  with_type(dtype, [&](auto t) {
    using T = decltype(t);
    using S = typename T::Store;
    using A = typename T::Acc;
    std::vector<A>& m = *[&] {
      if constexpr (std::is_same_v<A, double>) return f64;
      else return f32;
    }();
    const S* p = static_cast<const S*>(v);
    m.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const A x = T::load(p[i]);
      m[i] = std::isnan(x) ? std::numeric_limits<A>::infinity() : std::fabs(x);
    }
  });
}

size_t packed_bytes(nexar_compress_method_t method, size_t k, nexar_dtype_t dtype) {
  return sizeof(Head) + (method == NEXAR_COMPRESS_TOPK ? k * sizeof(uint32_t) : 0) + k * dtype_size(dtype);
}

void pack(const Head& head, const std::vector<uint32_t>& idx, const void* v, nexar_dtype_t dtype, uint8_t* out) {
  std::memcpy(out, &head, sizeof(head));
  out += sizeof(head);
  if (head.method == NEXAR_COMPRESS_TOPK) {
    std::memcpy(out, idx.data(), idx.size() * sizeof(uint32_t));
    out += idx.size() * sizeof(uint32_t);
  }
  const size_t e = dtype_size(dtype);
  const auto* src = static_cast<const uint8_t*>(v);
  for (uint32_t i : idx) {
    std::memcpy(out, src + size_t{i} * e, e);
    out += e;
  }
}

Status sum_contributions(const Head& mine, int my_rank, const uint8_t* all, int nranks, size_t per_rank,
                         const std::vector<uint32_t>& idx, void* recv) {
  const auto dtype = static_cast<nexar_dtype_t>(mine.dtype);
  const size_t count = mine.count, k = mine.k;
  const bool topk = mine.method == NEXAR_COMPRESS_TOPK;
  // Every head first: nothing is summed from ranks that disagree.
  for (int r = 0; r < nranks; ++r) {
    Head h;
    std::memcpy(&h, all + static_cast<size_t>(r) * per_rank, sizeof(h));
    if (h.magic != kHeadMagic)
      return Status(NEXAR_ERR_PROTOCOL, strprintf("allreduce_compressed: malformed contribution from rank %d", r));
    if (h.method != mine.method || h.dtype != mine.dtype || h.count != mine.count || h.k != mine.k ||
        (!topk && h.seed != mine.seed))
      return Status(NEXAR_ERR_MISMATCH,
                    strprintf("allreduce_compressed: rank %d passed %s, %s, %llu elements, %llu contributed, seed %llu; "
                              "rank %d passed %s, %s, %llu elements, %llu contributed, seed %llu",
                              my_rank, method_name(mine.method), dtype_name(dtype),
                              static_cast<unsigned long long>(mine.count), static_cast<unsigned long long>(mine.k),
                              static_cast<unsigned long long>(mine.seed), r, method_name(h.method),
                              dtype_name(static_cast<nexar_dtype_t>(h.dtype)), static_cast<unsigned long long>(h.count),
                              static_cast<unsigned long long>(h.k), static_cast<unsigned long long>(h.seed)));
  }
  Status st;
  with_type(dtype, [&](auto t) {
    using T = decltype(t);
    using S = typename T::Store;
    std::vector<typename T::Acc> acc(count, 0);
    std::vector<uint32_t> theirs(topk ? k : 0);
    for (int r = 0; r < nranks && st.ok(); ++r) {
      const uint8_t* p = all + static_cast<size_t>(r) * per_rank + sizeof(Head);
      const uint32_t* at = idx.data();
      if (topk) {
        std::memcpy(theirs.data(), p, k * sizeof(uint32_t));
        p += k * sizeof(uint32_t);
        at = theirs.data();
        // Ascending and in range, so no element is counted twice or written outside.
        for (size_t j = 0; j < k; ++j)
          if (at[j] >= count || (j > 0 && at[j] <= at[j - 1])) {
            st = Status(NEXAR_ERR_PROTOCOL,
                        strprintf("allreduce_compressed: rank %d sent index %u at position %zu (count %zu)", r, at[j], j, count));
            return;
          }
      }
      for (size_t j = 0; j < k; ++j) {
        S x;
        std::memcpy(&x, p + j * sizeof(S), sizeof(S));
        acc[at[j]] += T::load(x);
      }
    }
    if (!st.ok()) return;
    S* out = static_cast<S*>(recv);
    for (size_t i = 0; i < count; ++i) out[i] = T::store(acc[i]);
  });
  return st;
}

void leave_residual(const void* v, const std::vector<uint32_t>& idx, void* residual, size_t count, nexar_dtype_t dtype) {
  const size_t e = dtype_size(dtype);
  std::memmove(residual, v, count * e);
  auto* r = static_cast<uint8_t*>(residual);
  for (uint32_t i : idx) std::memset(r + size_t{i} * e, 0, e);
}

}  // namespace nexar::coll::compress
