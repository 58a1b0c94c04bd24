// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The flat shared-slot collectives (allreduce, reduce, broadcast, barrier, allgather,
// gather, scatter, reduce_scatter, alltoall shm_flat): every rank writes its input inline into its own
// slot, publishes its arrival, waits for every member's (shm_slots.h) and reads what it
// needs straight from their slots. One publication and one wait per call, whatever p: no
// engine, no messages, no second round, no system call. The input is in the slot before
// the arrival, so in place needs nothing more: recvbuf changes only after it. Reductions
// combine every member's data in rank order 0..p-1, so all ranks compute the same bits.
// Inputs up to NEXAR_SHM_COLL_INLINE bytes (algo_table.cc why_not_here checks).
#include <cstring>

#include "collectives/algorithms.h"
#include "shm_coll/shm_slots.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

namespace {

// allreduce and reduce: every rank's input into its slot; the ranks that get the result
// (every rank, or the root) combine the slots.
Status combine_flat(CollContext& ctx, const CollArgs& a, bool mine_too) {
  const size_t bytes = a.count * dtype_size(a.dtype);
  ShmSlots* s = ctx.shm_slots();
  if (!s) {  // one rank: nothing to combine
    copy_elems(a.recvbuf, a.sendbuf, a.count, dtype_size(a.dtype));
    return Status::Ok();
  }
  const int p = ctx.size();
  const uint64_t seq = s->next_seq();
  if (bytes) std::memcpy(s->buf(ctx.rank(), seq)->data(), a.sendbuf, bytes);  // before recvbuf changes (in place)
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  if (bytes == 0 || !mine_too) return Status::Ok();
  reduce(a.recvbuf, s->buf(0, seq)->data(), s->buf(1, seq)->data(), a.count, a.dtype, a.op);
  for (int r = 2; r < p; ++r) reduce(a.recvbuf, a.recvbuf, s->buf(r, seq)->data(), a.count, a.dtype, a.op);
  reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

}  // namespace

Status allreduce_shm_flat(CollContext& ctx, const CollArgs& a) { return combine_flat(ctx, a, true); }
Status reduce_shm_flat(CollContext& ctx, const CollArgs& a) { return combine_flat(ctx, a, ctx.rank() == a.root); }

Status broadcast_shm_flat(CollContext& ctx, const CollArgs& a) {
  const size_t bytes = a.count * dtype_size(a.dtype);
  ShmSlots* s = ctx.shm_slots();
  if (!s) return Status::Ok();
  const uint64_t seq = s->next_seq();
  if (bytes && ctx.rank() == a.root) std::memcpy(s->buf(a.root, seq)->data(), a.recvbuf, bytes);
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  if (bytes && ctx.rank() != a.root) std::memcpy(a.recvbuf, s->buf(a.root, seq)->data(), bytes);
  return Status::Ok();
}

Status barrier_shm_flat(CollContext& ctx, const CollArgs&) {
  ShmSlots* s = ctx.shm_slots();
  if (!s) return Status::Ok();
  return s->arrive(s->next_seq(), 0);
}

// allgather: member j's slot holds its count elements, block j of recvbuf.
Status allgather_shm_flat(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  const void* mine = a.sendbuf == a.recvbuf ? out + static_cast<size_t>(r) * bb : a.sendbuf;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(out, mine, a.count, es);
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  if (bb) std::memcpy(s->buf(r, seq)->data(), mine, bb);
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  copy_elems(out + static_cast<size_t>(r) * bb, mine, a.count, es);  // in place: where it already is
  for (int j = 0; j < p && bb; ++j)
    if (j != r) std::memcpy(out + static_cast<size_t>(j) * bb, s->buf(j, seq)->data(), bb);
  return Status::Ok();
}

// gather: as allgather, only the root copies the blocks out. In place the root's block is
// already at its place in recvbuf.
Status gather_shm_flat(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  const bool root = r == a.root;
  const void* mine = root && a.sendbuf == a.recvbuf ? out + static_cast<size_t>(r) * bb : a.sendbuf;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(out, mine, a.count, es);
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  if (bb && !root) std::memcpy(s->buf(r, seq)->data(), mine, bb);
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  if (!root || bb == 0) return Status::Ok();
  copy_elems(out + static_cast<size_t>(r) * bb, mine, a.count, es);  // in place: where it already is
  for (int j = 0; j < p; ++j)
    if (j != r) std::memcpy(out + static_cast<size_t>(j) * bb, s->buf(j, seq)->data(), bb);
  return Status::Ok();
}

// scatter: the root's slot holds its whole input (p blocks); rank j copies block j. In
// place the root's block stays in sendbuf.
Status scatter_shm_flat(CollContext& ctx, const CollArgs& a) {
  const int r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const bool root = r == a.root;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  if (bb && root) std::memcpy(s->buf(r, seq)->data(), a.sendbuf, bb * static_cast<size_t>(ctx.size()));
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  if (bb == 0) return Status::Ok();
  if (!root) std::memcpy(a.recvbuf, s->buf(a.root, seq)->data() + static_cast<size_t>(r) * bb, bb);
  else if (a.recvbuf != a.sendbuf) copy_elems(a.recvbuf, at(a.sendbuf, static_cast<size_t>(r) * a.count, es), a.count, es);
  return Status::Ok();
}

// reduce_scatter: member j's slot holds its whole input (p blocks); block r of every slot,
// reduced in rank order, is this rank's result.
Status reduce_scatter_shm_flat(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  if (bb) std::memcpy(s->buf(r, seq)->data(), a.sendbuf, bb * static_cast<size_t>(p));
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  if (bb == 0) return Status::Ok();
  const size_t at_b = static_cast<size_t>(r) * bb;
  reduce(a.recvbuf, s->buf(0, seq)->data() + at_b, s->buf(1, seq)->data() + at_b, a.count, a.dtype, a.op);
  for (int j = 2; j < p; ++j) reduce(a.recvbuf, a.recvbuf, s->buf(j, seq)->data() + at_b, a.count, a.dtype, a.op);
  reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

// alltoall: member j's slot holds its whole input; its block r is block j of recvbuf.
Status alltoall_shm_flat(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es, at_b = static_cast<size_t>(r) * bb;
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(out + at_b, at(a.sendbuf, static_cast<size_t>(r) * a.count, es), a.count, es);
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  if (bb) std::memcpy(s->buf(r, seq)->data(), a.sendbuf, bb * static_cast<size_t>(p));
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  for (int j = 0; j < p && bb; ++j) std::memcpy(out + static_cast<size_t>(j) * bb, s->buf(j, seq)->data() + at_b, bb);
  return Status::Ok();
}

// One slot round costs about half an engine message (a store, a fence per doorbell and
// a cache-line read per member; no request, no matching): a/2. Then the copy into the
// slot (a memcpy within shared memory: b / c per byte, as shm_stage's copies count) and
// p - 1 reductions straight from the slots.
double allreduce_shm_flat_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(1, p) + m.beta_us_per_byte / m.cma_factor * n + m.reduce((p - 1) * n);
}
// reduce: the root's time, which is allreduce's.
double reduce_shm_flat_cost(const CostModel& m, int p, double n) { return allreduce_shm_flat_cost(m, p, n); }
double broadcast_shm_flat_cost(const CostModel& m, int p, double n) { return m.slot_rounds(1, p) + m.shared_copy_beta(p) * n; }
double barrier_shm_flat_cost(const CostModel& m, int p, double) { return m.slot_rounds(1, p); }
// One slot round; n = p * count bytes. allgather copies n/p in and n out (gather: the
// others copy n/p in, the root n out; scatter: the root n in, each n/p out), alltoall and
// reduce_scatter n in and n out (reduce_scatter reducing n/p from each of p slots), each
// byte at CostModel::shared_copy_beta.
double allgather_shm_flat_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(1, p) + m.shared_copy_beta(p) * n * (p + 1) / p;
}
double gather_shm_flat_cost(const CostModel& m, int p, double n) { return allgather_shm_flat_cost(m, p, n); }
double scatter_shm_flat_cost(const CostModel& m, int p, double n) { return allgather_shm_flat_cost(m, p, n); }
double alltoall_shm_flat_cost(const CostModel& m, int p, double n) { return m.slot_rounds(1, p) + 2 * m.shared_copy_beta(p) * n; }
double reduce_scatter_shm_flat_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(1, p) + m.shared_copy_beta(p) * (n + n / p) + m.reduce(n);
}

}  // namespace nexar::coll
