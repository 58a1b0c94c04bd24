// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/ring_phases.h"

#include <algorithm>

#include "core/reduce.h"

namespace nexar::coll {

Status ring_reduce_scatter(CollContext& ctx, const RingSpec& spec, const void* in, void* out, nexar_dtype_t dtype,
                           nexar_op_t op) {
  const int p = ctx.size();
  const Blocks& b = spec.blocks;
  const size_t es = spec.esize;
  const int v = mod(ctx.rank() - spec.rot, p);
  if (p == 1) {
    copy_elems(out, at(in, b.off(0), es), b.len(0), es);
    return Status::Ok();
  }
  const size_t maxlen = b.max_len();
  TempBuf acc, rbuf;
  NX_RETURN_IF_ERROR(acc.alloc(maxlen * es, "ring reduce-scatter accumulator"));
  NX_RETURN_IF_ERROR(rbuf.alloc(maxlen * es, "ring reduce-scatter receive buffer"));
  const int right = mod(v + 1 + spec.rot, p), left = mod(v - 1 + spec.rot, p);
  for (int s = 0; s <= p - 2; ++s) {
    const int sb = mod(v - 1 - s, p), rb = mod(v - 2 - s, p);
    const void* sptr = s == 0 ? at(in, b.off(sb), es) : acc.data();
    NX_RETURN_IF_ERROR(ctx.sendrecv(right, spec.tag, sptr, b.len(sb) * es, left, spec.tag, rbuf.data(), b.len(rb) * es));
    // The partial sum of block rb arrived; add this rank's share. The last step's result
    // is final, so it goes straight to out.
    void* dst = s == p - 2 ? out : acc.data();
    reduce(dst, rbuf.data(), at(in, b.off(rb), es), b.len(rb), dtype, op);
  }
  return Status::Ok();
}

Status ring_allgather(CollContext& ctx, const RingSpec& spec, void* buf) {
  const int p = ctx.size();
  const Blocks& b = spec.blocks;
  const size_t es = spec.esize;
  const int v = mod(ctx.rank() - spec.rot, p);
  const int right = mod(v + 1 + spec.rot, p), left = mod(v - 1 + spec.rot, p);
  for (int s = 0; s <= p - 2; ++s) {
    const int sb = mod(v - s, p), rb = mod(v - s - 1, p);
    NX_RETURN_IF_ERROR(ctx.sendrecv(right, spec.tag, at(buf, b.off(sb), es), b.len(sb) * es, left, spec.tag,
                                    at(buf, b.off(rb), es), b.len(rb) * es));
  }
  return Status::Ok();
}

}  // namespace nexar::coll
