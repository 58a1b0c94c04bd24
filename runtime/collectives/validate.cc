// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// validate_collective_args: the local checks the API layer runs before anything is sent,
// and check_count: the largest buffer any call accepts (point to point uses it too).
#include <algorithm>
#include <cstdint>

#include "collectives/collective.h"
#include "core/dtype.h"
#include "core/raw_enum.h"

namespace nexar::coll {

Status invalid(const CollArgs& a, const std::string& what) {
  return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("%s: %s", coll_kind_name(a.kind), what.c_str()));
}

namespace {

// Small factors (every call but a huge one): their product cannot overflow 64 bits, so
// it is compared at once, without check_count's two divisions (tens of cycles each).
inline bool small_count_fits(size_t count, size_t copies, size_t elem_bytes) {
  return (count >> 32) == 0 && (copies >> 24) == 0 && elem_bytes - 1 < 255 &&
         count * elem_bytes * std::max<size_t>(copies, 1) <= kMaxBufferBytes;
}

}  // namespace

Status check_count(size_t count, size_t copies, size_t elem_bytes, size_t* bytes) {
  if (small_count_fits(count, copies, elem_bytes)) {
    if (bytes) *bytes = count * elem_bytes;
    return Status::Ok();
  }
  // Both factors are >= 1; each division keeps the product's test exact without overflow.
  const size_t per_copy = kMaxBufferBytes / std::max<size_t>(copies, 1);
  if (elem_bytes == 0 || count > per_copy / elem_bytes) {
    const std::string times = copies > 1 ? strprintf(" x %zu ranks", copies) : std::string();
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("count %zu x %zu bytes%s exceeds the largest possible buffer (2^%d bytes)", count,
                            elem_bytes, times.c_str(), kMaxBufferBits));
  }
  if (bytes) *bytes = count * elem_bytes;
  return Status::Ok();
}

Status validate_collective_args(const CollArgs& a, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    return invalid(a, strprintf("rank %d of %d ranks is not a valid position", rank, size));
  const CollKindTraits& kind = kind_traits(a.kind);
  const bool has_data = kind.data;
  const int dtype = raw_value(a.dtype), op = raw_value(a.op);
  if (has_data && (dtype < NEXAR_INT8 || dtype > NEXAR_FLOAT64))
    return invalid(a, strprintf("dtype %d is not a nexar_dtype_t", dtype));
  if (kind.op && (op < NEXAR_SUM || op > NEXAR_BXOR)) return invalid(a, strprintf("op %d is not a nexar_op_t", op));
  if (kind.op && has_data && !op_applies_to(a.op, a.dtype))
    return invalid(a, strprintf("op %s is bitwise: it takes integer dtypes only, not %s", op_name(a.op),
                                dtype_name(a.dtype)));
  if (kind.root && (a.root < 0 || a.root >= size))
    return invalid(a, strprintf("root %d is outside [0, %d)", a.root, size));
  if (!has_data) return Status::Ok();
  if (kind.vector) return validate_vector_args(a, rank, size);
  const size_t es = dtype_size(a.dtype);
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) {
    if (a.nbufs > 0 && (a.bufs == nullptr || a.counts == nullptr))
      return invalid(a, strprintf("bufs %p / counts %p is NULL with nbufs %zu", static_cast<const void*>(a.bufs),
                                  static_cast<const void*>(a.counts), a.nbufs));
    size_t total = 0;
    for (size_t i = 0; i < a.nbufs; ++i) {
      if (a.counts[i] > 0 && a.bufs[i] == nullptr) return invalid(a, strprintf("bufs[%zu] is NULL with counts[%zu] = %zu", i, i, a.counts[i]));
      if (a.counts[i] > kMaxBufferBytes / es - total)
        return invalid(a, strprintf("counts add up past the largest possible buffer at counts[%zu] = %zu", i,
                                    a.counts[i]));
      total += a.counts[i];
    }
    return Status::Ok();
  }
  // Every rank refuses the same counts (a root alone refusing would leave the others waiting).
  const bool spans_ranks = kind.in.span == Span::RANKS || kind.out.span == Span::RANKS;
  const size_t copies = spans_ranks ? static_cast<size_t>(size) : 1;
  if (!small_count_fits(a.count, copies, es))
    if (Status st = check_count(a.count, copies, es, nullptr); !st.ok()) return invalid(a, st.message());
  // Elements each buffer holds on this rank (the count passed check_count above).
  const bool root = rank == a.root;
  const size_t in = extent_elements(kind.in, a.count, size, root), out = extent_elements(kind.out, a.count, size, root);
  const char* in_buf = kind.input_in_recvbuf ? "recvbuf" : "sendbuf";
  const void* in_ptr = kind.input_in_recvbuf ? a.recvbuf : a.sendbuf;
  if (in > 0 && in_ptr == nullptr) return invalid(a, strprintf("%s is NULL with count %zu", in_buf, a.count));
  if (out > 0 && a.recvbuf == nullptr) return invalid(a, strprintf("recvbuf is NULL with count %zu", a.count));
  return Status::Ok();
}

}  // namespace nexar::coll
