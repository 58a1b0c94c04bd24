// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// reduce_scatter and reduce by direct reads (CMA), for ranks of one host with shared slots:
// every rank publishes where its input lies and arrives (direct_round.h); rank r computes
// block r of the result by reading every other member's input block r (reduce_block_direct).
//  - reduce_scatter: block r is rank r's result. In place its input block 0 is still read
//    by rank 0 while it computes, so the result goes to scratch first and moves to recvbuf
//    after every member's read_done.
//  - reduce: every rank computes its block (the root into its recvbuf, the others into
//    scratch), publishes block_done; the root reads each block once its owner's
//    block_done is set, then read_done; the others return once the root's read_done.
// Each block is computed by one rank, in one order.
#include "collectives/algorithms.h"
#include "core/dtype.h"
#include "shm_coll/direct_round.h"

namespace nexar::coll {

Status reduce_scatter_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const bool in_place = a.sendbuf == a.recvbuf;
  const void* input = a.sendbuf;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(a.recvbuf, input, a.count, es);
    return Status::Ok();
  }
  TempBuf scratch;
  void* out = a.recvbuf;
  if (in_place && bb) {
    NX_RETURN_IF_ERROR(scratch.alloc(bb, "in-place reduce_scatter"));
    out = scratch.data();
  }
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, input, a.recvbuf, a.count));
  const size_t mine = static_cast<size_t>(r) * a.count;
  const Status st = reduce_block_direct(*s, p, r, seq, a.dtype, a.op, at(input, mine, es), mine * es, out, a.count);
  NX_RETURN_IF_ERROR(end_direct(*s, seq, st, kReadByAll));
  if (out != a.recvbuf) copy_elems(a.recvbuf, out, a.count, es);
  return Status::Ok();
}

Status reduce_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  const Blocks blk{a.count, p};
  // The root's own block goes straight into its recvbuf: in place, that part of its input
  // is read by nobody else.
  TempBuf scratch;
  void* out = r == a.root ? at(a.recvbuf, blk.off(r), es) : nullptr;
  if (!out) {
    NX_RETURN_IF_ERROR(scratch.alloc(blk.len(r) * es, "reduce shm_direct's block"));
    out = scratch.data();
  }
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, a.sendbuf, out, a.count));
  NX_RETURN_IF_ERROR(reduce_block_direct(*s, p, r, seq, a.dtype, a.op, at(a.sendbuf, blk.off(r), es),
                                         blk.off(r) * es, out, blk.len(r)));
  s->publish(&shm::CollSlot::block_done, seq);
  if (r != a.root) return end_direct(*s, seq, Status::Ok(), a.root);
  // In place the root's input block k is overwritten only after rank k's block_done,
  // i.e. after rank k finished reading it.
  Status st;
  for (int i = 1; i < p && st.ok(); ++i) {
    const int k = (r + i) % p;
    if (blk.len(k) == 0) continue;
    st = s->wait(&shm::CollSlot::block_done, seq, k);
    if (st.ok()) st = s->read(k, at(a.recvbuf, blk.off(k), es), s->buf(k, seq)->recvbuf, blk.len(k) * es);
  }
  return end_direct(*s, seq, st, kReadByNobody);
}

// Two slot rounds, p - 1 reads of n/p bytes each reduced (n = p * count bytes).
double reduce_scatter_shm_direct_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  return m.slot_rounds(2, p) + (p - 1) * m.alpha_us / 4 + n * f * m.beta_us_per_byte + m.reduce(n * f);
}
// Three slot rounds; n(p-1)/p read and reduced by the ranks together, n(p-1)/p read by
// the root.
double reduce_shm_direct_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  return m.slot_rounds(3, p) + 2 * (p - 1) * m.alpha_us / 4 + 2 * n * f * m.beta_us_per_byte + m.reduce(n * f);
}

}  // namespace nexar::coll
