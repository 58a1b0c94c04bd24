// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The data-movement collectives by direct reads (CMA), for ranks of one host with shared
// slots (broadcast, allgather, alltoall, gather, scatter shm_direct): every rank publishes
// its buffer addresses and arrives (direct_round.h); then each rank reads what it needs
// straight from its owners' buffers into its own (one copy per byte, no messages, no
// staging); then read_done, and a rank waits only for the ranks that read its memory
// (none in an empty call: one slot round, the descriptor check, is all it costs).
// Readers start at rank + 1, so the readers of one rank spread out. gather turns it
// around: the contributors write into the root's buffer, so the root's wait covers them.
#include "collectives/algorithms.h"
#include "collectives/stream_copy.h"
#include "core/dtype.h"
#include "shm_coll/direct_round.h"

namespace nexar::coll {
namespace {

// Who reads this rank's memory: `readers`, or nobody in an empty call (count 0, the same
// on every rank: arrive compared it), which then ends after one slot round.
int readers_of(const CollArgs& a, int readers) { return a.count ? readers : kReadByNobody; }

// Whether the own block's copy goes around the cache (stream_copy.h): the call touches
// every member's sendbuf and recvbuf, `per_rank` bytes each.
bool own_streams(int p, size_t per_rank) { return streams_past_cache(static_cast<double>(p) * static_cast<double>(per_rank)); }

// The own block's copy (nothing when it is already in place).
void copy_own_block(void* to, const void* from, size_t bytes, bool stream) {
  if (to != from) copy_out(to, from, bytes, stream);
}

// Where member j's data for this collective begins (the address it published as sendbuf).
uint64_t src_of(ShmSlots& s, int j, uint64_t seq) { return s.buf(j, seq)->sendbuf; }

// Reads bb bytes at byte offset at_b of every other member j's sendbuf into block j of
// recvbuf (at j * bb), members in ring order from rank + 1. Stops at the first failure.
Status read_blocks(ShmSlots& s, int p, int r, uint64_t seq, void* recvbuf, size_t bb, uint64_t at_b) {
  Status st;
  for (int i = 1; i < p && st.ok() && bb; ++i) {
    const int j = (r + i) % p;
    st = s.read(j, static_cast<unsigned char*>(recvbuf) + static_cast<size_t>(j) * bb, src_of(s, j, seq) + at_b, bb);
  }
  return st;
}

}  // namespace

// The root's buffer is read by every other rank.
Status broadcast_shm_direct(CollContext& ctx, const CollArgs& a) {
  ShmSlots* s = ctx.shm_slots();
  if (!s) return Status::Ok();
  const int r = ctx.rank();
  const size_t bytes = a.count * dtype_size(a.dtype);
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, a.recvbuf, a.recvbuf, a.count));
  if (r != a.root) {
    const Status st = bytes ? s->read(a.root, a.recvbuf, src_of(*s, a.root, seq), bytes) : Status::Ok();
    return end_direct(*s, seq, st, kReadByNobody);
  }
  return end_direct(*s, seq, Status::Ok(), readers_of(a, kReadByAll));
}

// Every rank reads every other's contribution into its block of recvbuf. In place the
// contribution already sits at recvbuf + rank * count, where nobody else writes.
Status allgather_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const void* mine = a.sendbuf == a.recvbuf ? at(a.recvbuf, static_cast<size_t>(r) * a.count, es) : a.sendbuf;
  // After arriving: the others read `mine`, so they need not wait for this copy.
  const auto copy_own = [&] {
    copy_own_block(at(a.recvbuf, static_cast<size_t>(r) * a.count, es), mine, bb, own_streams(p, bb * (p + 1u)));
  };
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_own();
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, mine, a.recvbuf, a.count));
  copy_own();
  return end_direct(*s, seq, read_blocks(*s, p, r, seq, a.recvbuf, bb, 0), readers_of(a, kReadByAll));
}

// Every rank reads block r of every other's sendbuf. In place the outgoing blocks are
// copied aside first: the readers of this rank would otherwise see blocks it already
// overwrote.
Status alltoall_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const bool in_place = a.sendbuf == a.recvbuf;
  const size_t own = static_cast<size_t>(r) * a.count;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(at(a.recvbuf, own, es), at(a.sendbuf, own, es), a.count, es);
    return Status::Ok();
  }
  TempBuf aside;
  const void* send = a.sendbuf;
  if (in_place && bb) {
    NX_RETURN_IF_ERROR(aside.alloc(bb * static_cast<size_t>(p), "in-place alltoall"));
    copy_elems(aside.data(), a.sendbuf, a.count * static_cast<size_t>(p), es);
    send = aside.data();
  }
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, send, a.recvbuf, a.count));
  copy_own_block(at(a.recvbuf, own, es), at(send, own, es), bb, own_streams(p, 2 * bb * static_cast<size_t>(p)));
  return end_direct(*s, seq, read_blocks(*s, p, r, seq, a.recvbuf, bb, own * es), readers_of(a, kReadByAll));
}

// gather's and scatter's shape: the root copies its own block (after arriving, so the
// others need not wait for that copy) and waits until every other rank has moved its
// block; every other rank moves its block (`move`: one CMA call of bb bytes) and returns.
template <class CopyOwn, class Move>
Status rooted_direct(CollContext& ctx, const CollArgs& a, CopyOwn copy_own, Move move) {
  ShmSlots* s = ctx.shm_slots();
  const bool root = ctx.rank() == a.root;
  if (!s) {
    if (root) copy_own();
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, ctx.rank(), seq, a.sendbuf, a.recvbuf, a.count));
  if (root) {
    copy_own();
    return end_direct(*s, seq, Status::Ok(), readers_of(a, kReadByAll));
  }
  const size_t bb = a.count * dtype_size(a.dtype);
  return end_direct(*s, seq, bb ? move(*s, seq, bb) : Status::Ok(), kReadByNobody);
}

// Every other rank writes its contribution into its block of the root's recvbuf (CMA
// write) while the root copies its own: the copies run on every rank's core at once, not
// all on the root's.
Status gather_shm_direct(CollContext& ctx, const CollArgs& a) {
  const size_t r = static_cast<size_t>(ctx.rank()), es = dtype_size(a.dtype);
  return rooted_direct(
      ctx, a,
      [&] {
        if (a.sendbuf != a.recvbuf) copy_elems(at(a.recvbuf, r * a.count, es), a.sendbuf, a.count, es);
      },
      [&](ShmSlots& s, uint64_t seq, size_t bb) {
        return s.write(a.root, s.buf(a.root, seq)->recvbuf + r * bb, a.sendbuf, bb);
      });
}

// Every other rank reads its block of the root's sendbuf while the root copies its own.
Status scatter_shm_direct(CollContext& ctx, const CollArgs& a) {
  const size_t r = static_cast<size_t>(ctx.rank()), es = dtype_size(a.dtype);
  return rooted_direct(
      ctx, a,
      [&] {
        if (a.recvbuf != a.sendbuf) copy_elems(a.recvbuf, at(a.sendbuf, r * a.count, es), a.count, es);
      },
      [&](ShmSlots& s, uint64_t seq, size_t bb) {
        return s.read(a.root, a.recvbuf, src_of(s, a.root, seq) + r * bb, bb);
      });
}

// Two slot rounds; the readers copy in parallel, so a broadcast costs one copy of n.
double broadcast_shm_direct_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(2, p) + m.alpha_us / 4 + n * m.beta_us_per_byte;
}
// Two slot rounds, p - 1 reads (a/4 each: a system call, no matching) of n(p-1)/p bytes
// (n = p * count bytes) per rank; the same for alltoall, and for the root of a gather or
// scatter, which moves all of them itself.
double allgather_shm_direct_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(2, p) + (p - 1) * m.alpha_us / 4 + n * (p - 1) / p * m.beta_us_per_byte;
}
double alltoall_shm_direct_cost(const CostModel& m, int p, double n) { return allgather_shm_direct_cost(m, p, n); }
double gather_shm_direct_cost(const CostModel& m, int p, double n) { return allgather_shm_direct_cost(m, p, n); }
double scatter_shm_direct_cost(const CostModel& m, int p, double n) { return allgather_shm_direct_cost(m, p, n); }

}  // namespace nexar::coll
