// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The data-movement collectives by pushed data, for ranks of one host with shared slots
// (broadcast, allgather, alltoall shm_push): every rank whose data others read copies it
// into its own shared segment first (shm_coll/push_segment.h) and arrives; then each rank
// copies what it needs from its mappings of the owners' segments into its own buffer
// (memcpy), publishes read_done and returns. One slot round, where shm_direct's reads of
// the user's memory (CMA: a system call and the pages pinned per read) need a second round
// before a rank whose memory is read may return; one more copy per byte. With more ranks
// than cores every round waits for every member to be scheduled, so the round saved is
// worth more than the copy (8 ranks on 2 cores: docs/shm.md). A rank that could not push
// is read by CMA and waits for its readers, as in shm_direct.
#include "collectives/algorithms.h"
#include "collectives/stream_copy.h"
#include "core/dtype.h"
#include "core/params.h"
#include "shm_coll/direct_round.h"
#include "shm_coll/push_segment.h"

namespace nexar::coll {
namespace {

// Copies n bytes of member j's data at byte offset at_b into `to`: from j's pushed segment
// (its data at the segment's start; around the cache when `stream`, stream_copy.h), else
// from j's memory at `from` + at_b by CMA.
Status copy_from(ShmSlots& s, int j, uint64_t seq, void* to, uint64_t from, size_t at_b, size_t n, bool stream) {
  const unsigned char* pushed = nullptr;
  NX_RETURN_IF_ERROR(pushed_data(s, j, seq, at_b + n, &pushed));
  if (pushed) {
    copy_out(to, pushed + at_b, n, stream);
    return Status::Ok();
  }
  return s.read(j, to, from + at_b, n);
}

// Who waits for readers after the reads: nobody when this rank pushed (or moved nothing).
int waits_for(const unsigned char* pushed, size_t bytes) { return pushed || bytes == 0 ? kReadByNobody : kReadByAll; }

}  // namespace

const char* shm_push_why_not(int p, const CollArgs& args) {
  double pushed = static_cast<double>(args.count) * static_cast<double>(dtype_size(args.dtype));
  if (args.kind == CollKind::ALLTOALL) pushed *= p;  // every block of its sendbuf
  return pushed > static_cast<double>(param::NEXAR_SHM_PUSH_MAX.get())
             ? "a rank would push more than NEXAR_SHM_PUSH_MAX bytes"
             : nullptr;
}

// The root pushes its buffer; every other rank copies it.
Status broadcast_shm_push(CollContext& ctx, const CollArgs& a) {
  ShmSlots* s = ctx.shm_slots();
  if (!s) return Status::Ok();
  const int r = ctx.rank();
  const size_t bytes = a.count * dtype_size(a.dtype);
  const uint64_t seq = s->next_seq();
  unsigned char* mine = nullptr;
  if (r == a.root && (mine = push_area(*s, r, seq, bytes))) copy_bytes(mine, a.recvbuf, bytes);
  NX_RETURN_IF_ERROR(arrive_pushing(*s, r, seq, a.recvbuf, a.recvbuf, a.count));
  if (r == a.root) return end_direct(*s, seq, Status::Ok(), waits_for(mine, bytes));
  // The call touches every member's buffer and the root's segment.
  const bool stream = streams_past_cache(static_cast<double>(bytes) * (ctx.size() + 1));
  const Status st = bytes ? copy_from(*s, a.root, seq, a.recvbuf, s->buf(a.root, seq)->sendbuf, 0, bytes, stream) : Status::Ok();
  return end_direct(*s, seq, st, kReadByNobody);
}

// Every rank pushes its contribution and copies every other's into its block of recvbuf.
Status allgather_shm_push(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  unsigned char* own = static_cast<unsigned char*>(a.recvbuf) + static_cast<size_t>(r) * bb;
  const void* input = a.sendbuf == a.recvbuf ? own : a.sendbuf;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_bytes(own, input, bb);
    return Status::Ok();
  }
  const uint64_t seq = s->next_seq();
  unsigned char* mine = push_area(*s, r, seq, bb);
  if (mine) copy_bytes(mine, input, bb);
  NX_RETURN_IF_ERROR(arrive_pushing(*s, r, seq, input, a.recvbuf, a.count));
  copy_elems(own, input, a.count, es);  // in place: where it already is
  // Every member's sendbuf, recvbuf (p blocks) and segment.
  const bool stream = streams_past_cache(static_cast<double>(bb) * p * (p + 2));
  Status st;
  for (int i = 1; i < p && st.ok() && bb; ++i) {
    const int j = (r + i) % p;
    st = copy_from(*s, j, seq, static_cast<unsigned char*>(a.recvbuf) + static_cast<size_t>(j) * bb,
                   s->buf(j, seq)->sendbuf, 0, bb, stream);
  }
  return end_direct(*s, seq, st, waits_for(mine, bb));
}

// Every rank pushes its whole sendbuf (p blocks) and copies block r of every other's.
// In place the pushed copy is also where its own block comes from: recvbuf is its
// sendbuf, and a rank that could not push copies its blocks aside as shm_direct does.
Status alltoall_shm_push(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype), bb = a.count * es, all = bb * static_cast<size_t>(p);
  const size_t own_b = static_cast<size_t>(r) * bb;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_bytes(static_cast<unsigned char*>(a.recvbuf) + own_b, static_cast<const unsigned char*>(a.sendbuf) + own_b, bb);
    return Status::Ok();
  }
  // Every member's sendbuf, recvbuf and segment, p blocks each. Past the cache the pushed
  // blocks too are read from memory, each by one rank: they are written around it.
  const bool stream = streams_past_cache(3.0 * static_cast<double>(all) * p);
  const uint64_t seq = s->next_seq();
  const void* send = a.sendbuf;
  TempBuf aside;
  unsigned char* mine = push_area(*s, r, seq, all);
  if (mine) {
    copy_out(mine, a.sendbuf, all, stream);
    if (a.sendbuf == a.recvbuf) send = mine;
  } else if (a.sendbuf == a.recvbuf && bb) {
    NX_RETURN_IF_ERROR(aside.alloc(all, "in-place alltoall"));
    copy_bytes(aside.data(), a.sendbuf, all);
    send = aside.data();
  }
  NX_RETURN_IF_ERROR(arrive_pushing(*s, r, seq, send, a.recvbuf, a.count));
  copy_bytes(static_cast<unsigned char*>(a.recvbuf) + own_b, static_cast<const unsigned char*>(send) + own_b, bb);
  Status st;
  for (int i = 1; i < p && st.ok() && bb; ++i) {
    const int j = (r + i) % p;
    st = copy_from(*s, j, seq, static_cast<unsigned char*>(a.recvbuf) + static_cast<size_t>(j) * bb,
                   s->buf(j, seq)->sendbuf, own_b, bb, stream);
  }
  return end_direct(*s, seq, st, waits_for(mine, bb));
}

namespace {
// Every shm_push call also looks up (and on first use maps) the segments it copies from,
// a/4 in all: where shm_flat's inline slots hold the data, they cost less.
double push_round(const CostModel& m, int p) { return m.slot_rounds(1, p) + m.alpha_us / 4; }
}  // namespace

// A byte copied into or out of a pushed segment costs CostModel::shared_copy_beta: against
// shm_direct at 8 ranks on 2 cores, allgather took 40-54 against 190 us (64 KiB) and
// 308-325 against 759-797 us (1 MiB), alltoall 72-93 against 242-348 us (64 KiB)
// (2026-11-27, load 12).
// One slot round; the root's copy into its segment, then every reader's out of it.
double broadcast_shm_push_cost(const CostModel& m, int p, double n) {
  return push_round(m, p) + 2 * n * m.shared_copy_beta(p);
}
// One slot round; each rank copies its n/p bytes in and the other n(p-1)/p out (n = p *
// count bytes).
double allgather_shm_push_cost(const CostModel& m, int p, double n) { return push_round(m, p) + n * m.shared_copy_beta(p); }
// One slot round; each rank copies its n bytes in and n(p-1)/p out (n = p * count bytes).
double alltoall_shm_push_cost(const CostModel& m, int p, double n) {
  return push_round(m, p) + n * (2 * p - 1) / p * m.shared_copy_beta(p);
}

}  // namespace nexar::coll
