// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce by direct reads of the members' buffers (CMA), for ranks of one host:
//  1. every rank publishes its sendbuf and recvbuf addresses in its slot (arrive);
//  2. reduce-scatter: rank r computes block r (element-aligned, Blocks) by reading every
//     other member's input block in pieces of kDirectPiece bytes into a cache-resident bounce
//     buffer and reducing it with its own, straight into its recvbuf; publishes block_done;
//  3. allgather: reads every other block from its owner's recvbuf straight into its own
//     (one copy) once that owner's block_done; publishes read_done;
//  4. returns once every member's read_done: until then peers read this rank's buffers.
// Each block is computed by one rank only, so every rank holds the same bits.
// In place: a rank's input block k is overwritten (step 3) only after rank k finished
// block k, i.e. finished reading it; its own block is combined element by element into
// itself (below).
#include "collectives/algorithms.h"
#include "core/dtype.h"
#include "shm_coll/direct_round.h"

namespace nexar::coll {

Status allreduce_shm_direct(CollContext& ctx, const CollArgs& a) {
  const size_t es = dtype_size(a.dtype);
  ShmSlots* s = ctx.shm_slots();
  if (!s) {  // one rank
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  const int p = ctx.size(), r = ctx.rank();
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, a.sendbuf, a.recvbuf, a.count));
  const Blocks blk{a.count, p};
  const size_t at_b = blk.off(r) * es;
  NX_RETURN_IF_ERROR(reduce_block_direct(*s, p, r, seq, a.dtype, a.op, at(a.sendbuf, blk.off(r), es), at_b,
                                         at(a.recvbuf, blk.off(r), es), blk.len(r)));
  s->publish(&shm::CollSlot::block_done, seq);
  for (int i = 1; i < p; ++i) {  // start after our own block: the owners' reads spread out
    const int k = (r + i) % p;
    if (blk.len(k) == 0) continue;
    NX_RETURN_IF_ERROR(s->wait(&shm::CollSlot::block_done, seq, k));
    NX_RETURN_IF_ERROR(s->read(k, at(a.recvbuf, blk.off(k), es), s->buf(k, seq)->recvbuf + blk.off(k) * es,
                               blk.len(k) * es));
  }
  return end_direct(*s, seq, Status::Ok(), kReadByAll);
}

// Three slot rounds (a/2 each); every rank moves its block in from p - 1 members and
// p - 1 blocks out: 2n(p-1)/p bytes, and reduces n(p-1)/p. The blocks it reads in step 3
// were written by their owners in this call (CostModel::reduced_results_extra; 2 ranks on 2 cores,
// 2026-11-28: allreduce 32 KiB took 7.8-9.2 us, shm_stage 5.8-6.8, where reduce, whose
// root reads only inputs the call did not write, took 5.4-7.4 us by shm_direct).
double allreduce_shm_direct_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  return m.slot_rounds(3, p) + 2 * n * f * m.beta_us_per_byte + m.reduced_results_extra(p, n) + m.reduce(n * f);
}

}  // namespace nexar::coll
