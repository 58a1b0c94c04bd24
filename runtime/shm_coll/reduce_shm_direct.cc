// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// reduce_scatter and reduce by direct reads (CMA), for ranks of one host with shared slots:
// every rank publishes where its input lies and arrives (direct_round.h); rank r computes
// block r of the result by reading every other member's input block r (reduce_block_direct).
//  - reduce_scatter: block r is rank r's result. In place its input block 0 is still read
//    by rank 0 while it computes, so the result goes to scratch first and moves to recvbuf
//    after every member's read_done.
//  - reduce: every rank computes its block, the root straight into its recvbuf, the others
//    piece by piece into a cache-resident scratch piece that they write into the root's
//    recvbuf (CMA); each publishes block_done once its block is there. The root returns
//    once every member's block_done (by then each finished reading its input too), the
//    others once every member's read_done. So no rank reads the others' results after
//    them: the root's path holds its own block's reads only. At p = 2 the root's block is
//    about two thirds of the vector and the other rank's the rest, which it reads and
//    writes back: both move about as many bytes (2n/3, where the root read n before: its
//    half, then the other half's result). The root publishes read_done once its reads
//    are done, so the other rank returns as soon as its block is written.
// Each block is computed by one rank, in one order.
#include <algorithm>

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

namespace {

// At p = 2 the other rank's block costs it two CMA calls (read, write back) where the
// root's costs one: the root takes kRootHead bytes more than two thirds of the vector
// before the rest is cut, (2n + kRootHead) / 3 (all of it up to kRootHead). 2 ranks,
// 2026-11-28: 32 KiB 4.6-5.4 us against 5.3-6.9 with two thirds, 64 KiB 6.5-7.1 against
// 7.2-9.3; 8 and 24 KiB measured alike or slower.
constexpr size_t kRootHead = 16u << 10;

// The reduce's blocks in rank order: the root's root_len elements (above at p = 2,
// count / p beyond), the others' the rest, cut evenly (Blocks).
struct ReduceBlocks {
  Blocks rest;
  size_t root_len;
  int root;
  size_t off(int k) const { return k <= root ? rest.off(k) : rest.off(k - 1) + root_len; }
  size_t len(int k) const { return k == root ? root_len : rest.len(k < root ? k : k - 1); }
};

ReduceBlocks reduce_blocks(size_t count, size_t es, int p, int root) {
  const size_t root_len = p == 2 ? std::min(count, (2 * count + kRootHead / es) / 3) : count / static_cast<size_t>(p);
  return ReduceBlocks{Blocks{count - root_len, p - 1}, root_len, root};
}

// A non-root's block into the root's recvbuf (published there at to_b = 0): reduced piece by
// piece into scratch and written at once, while the piece is in cache.
Status reduce_block_to_root(ShmSlots& s, const CollArgs& a, int p, int r, uint64_t seq, const ReduceBlocks& blk) {
  const size_t es = dtype_size(a.dtype), piece = kDirectPiece / es;
  TempBuf scratch;
  NX_RETURN_IF_ERROR(scratch.alloc(std::min(blk.len(r), piece) * es, "reduce shm_direct's piece"));
  const uint64_t root_out = s.buf(a.root, seq)->recvbuf;
  for (size_t done = 0; done < blk.len(r); done += piece) {
    const size_t off = blk.off(r) + done, n = std::min(piece, blk.len(r) - done);
    NX_RETURN_IF_ERROR(reduce_block_direct(s, p, r, seq, a.dtype, a.op, at(a.sendbuf, off, es), off * es, scratch.data(), n));
    NX_RETURN_IF_ERROR(s.write(a.root, root_out + off * es, scratch.data(), n * es));
  }
  return Status::Ok();
}

}  // namespace

Status reduce_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  ShmSlots* s = ctx.shm_slots();
  if (!s) {
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  const ReduceBlocks blk = reduce_blocks(a.count, es, p, a.root);
  const bool root = r == a.root;
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, a.sendbuf, root ? a.recvbuf : nullptr, a.count));
  // In place the root's input block k is overwritten by rank k only, after rank k read it.
  // A failure publishes no block_done: the root's wait ends with the communicator's error.
  if (!root) {
    NX_RETURN_IF_ERROR(reduce_block_to_root(*s, a, p, r, seq, blk));
    s->publish(&shm::CollSlot::block_done, seq);
    return end_direct(*s, seq, Status::Ok(), kReadByAll);  // every member reads this input
  }
  NX_RETURN_IF_ERROR(reduce_block_direct(*s, p, r, seq, a.dtype, a.op, at(a.sendbuf, blk.off(r), es),
                                         blk.off(r) * es, at(a.recvbuf, blk.off(r), es), blk.len(r)));
  // Done reading: the others may return as soon as their block is here, not a hand-off
  // after the root saw it.
  NX_RETURN_IF_ERROR(end_direct(*s, seq, Status::Ok(), kReadByNobody));
  for (int k = 0; k < p; ++k)
    if (k != r) NX_RETURN_IF_ERROR(s->wait(&shm::CollSlot::block_done, seq, k));
  return Status::Ok();
}

// Two slot rounds, p - 1 reads of n/p bytes each reduced (n = p * count bytes), each read
// a CMA call (a/4 with a core per rank). With more ranks than cores a core makes its
// ranks' calls one after another, crowding(p) (p - 1) of them, and each took about a:
// 8 ranks on 2 cores, 16 KiB took 66 us where the rounds and the bytes price 14 (52 us
// for 28 calls a core), 4 ranks 23 us (12 calls; 2026-11-28, ba8a11d, quiet machine).
double reduce_scatter_shm_direct_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  const double calls = p > m.cores ? (p - 1) * m.crowding(p) * m.alpha_us : (p - 1) * m.alpha_us / 4;
  return m.slot_rounds(2, p) + calls + n * f * m.beta_us_per_byte + m.reduce(n * f);
}
// Three slot rounds; the longest path's reads and writes: at p = 2 both ranks read about
// 2n/3 (the other rank the rest, written back), the root reducing 2n/3 (its kRootHead more
// is what the other rank's second CMA call's fixed cost, in p a/4, weighs: the split makes
// the two paths even, so the longest is no longer than with two thirds); beyond, each non-root
// reads n(p-1)/p and writes n/p, each rank reducing n(p-1)/p. p CMA calls' fixed costs.
// With more ranks than cores the ranks sharing a core move their bytes one after another:
// 2n(p-1)/p, what the root alone moved when it read every block back.
double reduce_shm_direct_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  const double moved = p > m.cores ? 2 * n * f : p == 2 ? 2 * n / 3 : n;
  const double reduced = p == 2 && p <= m.cores ? 2 * n / 3 : n * f;
  return m.slot_rounds(3, p) + p * m.alpha_us / 4 + moved * m.beta_us_per_byte + m.reduce(reduced);
}

}  // namespace nexar::coll
