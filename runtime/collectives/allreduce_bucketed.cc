// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce of many buffers in place, fused: the buffers are packed, in order, into a
// staging buffer of at most NEXAR_BUCKET_BYTES (a buffer may straddle chunks), each full
// chunk is allreduced in place by the algorithm the model picks for its size, then
// unpacked. A single buffer is reduced in place with no staging.
#include <algorithm>
#include <cstring>

#include "collectives/algorithms.h"
#include "core/dtype.h"

namespace nexar::coll {
namespace {

// Walks the buffers' elements in order, a chunk at a time.
struct Cursor {
  const CollArgs& a;
  size_t buf = 0, elem = 0;
  // Calls fn(pointer into buffer, stage offset, elements) for the next `want` elements.
  template <typename Fn>
  void take(size_t want, size_t es, Fn fn) {
    size_t done = 0;
    while (done < want && buf < a.nbufs) {
      const size_t n = std::min(a.counts[buf] - elem, want - done);
      if (n > 0) fn(at(a.bufs[buf], elem, es), done, n);
      done += n;
      elem += n;
      if (elem == a.counts[buf]) {
        ++buf;
        elem = 0;
      }
    }
  }
};

}  // namespace

Status allreduce_bucketed_staged(CollContext& ctx, const CollArgs& a) {
  const size_t es = dtype_size(a.dtype);
  size_t total = 0;
  for (size_t i = 0; i < a.nbufs; ++i) total += a.counts[i];
  if (total == 0) return agreement_round(ctx);  // nothing to reduce, but counts must agree
  CollArgs inner = a;
  inner.kind = CollKind::ALLREDUCE;
  inner.bufs = nullptr;
  inner.counts = nullptr;
  inner.nbufs = 0;
  for (size_t i = 0; i < a.nbufs; ++i)
    if (a.counts[i] == total) {  // everything is in one buffer: no staging
      inner.sendbuf = inner.recvbuf = a.bufs[i];
      inner.count = total;
      return select_and_run(ctx, inner);
    }
  const size_t chunk = std::max<size_t>(1, cost_model_from_params(ctx.transport()).bucket_bytes / es);
  const size_t stage_elems = std::min(total, chunk);
  TempBuf stage;
  NX_RETURN_IF_ERROR(stage.alloc(stage_elems * es, "allreduce_bucketed staging"));
  Cursor pack{a}, unpack{a};
  for (size_t left = total; left > 0;) {
    const size_t n = std::min(left, stage_elems);
    pack.take(n, es, [&](unsigned char* p, size_t off, size_t k) { std::memcpy(at(stage.data(), off, es), p, k * es); });
    inner.sendbuf = inner.recvbuf = stage.data();
    inner.count = n;
    NX_RETURN_IF_ERROR(select_and_run(ctx, inner));
    unpack.take(n, es, [&](unsigned char* p, size_t off, size_t k) { std::memcpy(p, at(stage.data(), off, es), k * es); });
    left -= n;
  }
  return Status::Ok();
}

// Each chunk costs what the cheapest allreduce costs for it.
double allreduce_bucketed_staged_cost(const CostModel& m, int p, double n) {
  const double chunk = static_cast<double>(m.bucket_bytes);
  double t = 0;
  for (double left = n; left > 0; left -= chunk) {
    const double c = left < chunk ? left : chunk;
    t += std::min({allreduce_ring_cost(m, p, c), allreduce_halving_doubling_cost(m, p, c),
                   allreduce_recursive_doubling_cost(m, p, c), allreduce_ring_pipelined_cost(m, p, c)});
  }
  return t;
}

}  // namespace nexar::coll
