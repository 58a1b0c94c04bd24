// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce by direct reads of the members' buffers (CMA), for ranks of one host:
//  1. every rank publishes its sendbuf and recvbuf addresses in its slot (arrive);
//  2. reduce-scatter: rank r computes block r (element-aligned, Blocks) by reading every
//     other member's input block in pieces of kPiece bytes into a cache-resident bounce
//     buffer and reducing it with its own, straight into its recvbuf; publishes block_done;
//  3. allgather: reads every other block from its owner's recvbuf straight into its own
//     (one copy) once that owner's block_done; publishes read_done;
//  4. returns once every member's read_done: until then peers read this rank's buffers.
// Each block is computed by one rank only, so every rank holds the same bits.
// In place: a rank's input block k is overwritten (step 3) only after rank k finished
// block k, i.e. finished reading it; its own block is combined element by element into
// itself (below).
#include <algorithm>
#include <memory>

#include "collectives/algorithms.h"
#include "shm_coll/shm_slots.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {
// A piece of a peer's block read per process_vm_readv: the call's fixed cost (pinning the
// pages, ~1-2 us) over 256 KiB is small, and out, own and bounce pieces (768 KiB) stay in
// a core's L2 while they are combined.
constexpr size_t kPiece = 256u << 10;

struct Bounce {
  alignas(64) unsigned char b[kPiece];
};

// Block r of the result, piece by piece: out = own op in_{r+1}, then out = out op in_j for
// the next members in ring order. Only this rank computes block r, so every rank still
// holds the same bits; the ops are commutative. Our own operand is read where it lies,
// never copied (in place, out == own: each element is read before it is written).
Status reduce_my_block(ShmSlots& s, const CollArgs& a, int p, int r, uint64_t seq, size_t off, size_t len) {
  static thread_local std::unique_ptr<Bounce> bounce;
  if (!bounce) bounce = std::make_unique<Bounce>();
  const size_t es = dtype_size(a.dtype);
  const size_t piece = kPiece / es;
  for (size_t done = 0; done < len; done += piece) {
    const size_t n = std::min(piece, len - done), bytes = n * es, at_b = (off + done) * es;
    unsigned char* out = static_cast<unsigned char*>(a.recvbuf) + at_b;
    const unsigned char* own = static_cast<const unsigned char*>(a.sendbuf) + at_b;
    for (int i = 1; i < p; ++i) {
      const int j = (r + i) % p;
      NX_RETURN_IF_ERROR(s.read(j, bounce->b, s.buf(j, seq)->sendbuf + at_b, bytes));
      reduce(out, i == 1 ? own : out, bounce->b, n, a.dtype, a.op);
    }
    reduce_finalize(out, n, a.dtype, a.op, static_cast<size_t>(p));
  }
  return Status::Ok();
}

}  // namespace

Status allreduce_shm_direct(CollContext& ctx, const CollArgs& a) {
  const size_t es = dtype_size(a.dtype);
  ShmSlots* s = ctx.shm_slots();
  if (!s) {  // one rank
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  const int p = ctx.size(), r = ctx.rank();
  const uint64_t seq = s->next_seq();
  shm::CollSlotBuf* mine = s->buf(r, seq);
  mine->sendbuf = reinterpret_cast<uint64_t>(a.sendbuf);
  mine->recvbuf = reinterpret_cast<uint64_t>(a.recvbuf);
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  const Blocks blk{a.count, p};
  NX_RETURN_IF_ERROR(reduce_my_block(*s, a, p, r, seq, blk.off(r), blk.len(r)));
  s->publish(&shm::CollSlot::block_done, seq);
  for (int i = 1; i < p; ++i) {  // start after our own block: the owners' reads spread out
    const int k = (r + i) % p;
    if (blk.len(k) == 0) continue;
    NX_RETURN_IF_ERROR(s->wait(&shm::CollSlot::block_done, seq, k));
    NX_RETURN_IF_ERROR(s->read(k, at(a.recvbuf, blk.off(k), es), s->buf(k, seq)->recvbuf + blk.off(k) * es,
                               blk.len(k) * es));
  }
  s->publish(&shm::CollSlot::read_done, seq);
  return s->wait(&shm::CollSlot::read_done, seq);
}

// Three slot rounds (a/2 each); every rank moves its block in from p - 1 members and
// p - 1 blocks out: 2n(p-1)/p bytes, and reduces n(p-1)/p.
double allreduce_shm_direct_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  return m.slot_rounds(3, p) + 2 * n * f * m.beta_us_per_byte + m.reduce(n * f);
}

}  // namespace nexar::coll
