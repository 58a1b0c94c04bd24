// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The flat shared-slot collectives (allreduce, broadcast, barrier shm_flat): every rank
// writes its data inline into its own slot, publishes its arrival, waits for every
// member's (shm_slots.h) and reads what it needs straight from their slots. One
// publication and one wait per call, whatever p: no engine, no messages, no rounds.
// Allreduce reduces every member's data in rank order 0..p-1, so all ranks compute the
// same bits. Payloads up to NEXAR_SHM_COLL_INLINE bytes (select.cc checks).
#include <cstring>

#include "collectives/algorithms.h"
#include "shm_coll/shm_slots.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

Status allreduce_shm_flat(CollContext& ctx, const CollArgs& a) {
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
  if (bytes == 0) return Status::Ok();
  reduce(a.recvbuf, s->buf(0, seq)->data(), s->buf(1, seq)->data(), a.count, a.dtype, a.op);
  for (int r = 2; r < p; ++r) reduce(a.recvbuf, a.recvbuf, s->buf(r, seq)->data(), a.count, a.dtype, a.op);
  reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

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

// One slot round costs about half an engine message (a store, a fence per doorbell and
// a cache-line read per member; no request, no matching): a/2. Then the reads of p - 1
// slots (cache to cache) and p - 1 reductions.
double allreduce_shm_flat_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(1, p) + m.beta_us_per_byte * n + m.reduce((p - 1) * n);
}
double broadcast_shm_flat_cost(const CostModel& m, int p, double n) { return m.slot_rounds(1, p) + m.beta_us_per_byte * n; }
double barrier_shm_flat_cost(const CostModel& m, int p, double) { return m.slot_rounds(1, p); }

}  // namespace nexar::coll
