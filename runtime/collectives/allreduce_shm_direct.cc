// Allreduce by direct reads of the members' buffers (CMA), for ranks of one host:
//  1. every rank publishes its sendbuf and recvbuf addresses in its slot (arrive);
//  2. reduce-scatter: rank r computes block r (element-aligned, Blocks) by reading every
//     member's input block in pieces of kPiece bytes into cache-resident bounce buffers
//     and reducing them, in rank order, straight into its recvbuf; publishes block_done;
//  3. allgather: reads every other block from its owner's recvbuf straight into its own
//     (one copy) once that owner's block_done; publishes read_done;
//  4. returns once every member's read_done: until then peers read this rank's buffers.
// Each block is computed by one rank only, so every rank holds the same bits.
// In place: a rank's input block k is overwritten (step 3) only after rank k finished
// block k, i.e. finished reading it; its own block is copied aside when needed (below).
#include <algorithm>
#include <cstring>
#include <memory>

#include "collectives/algorithms.h"
#include "collectives/shm_slots.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {
constexpr size_t kPiece = 64u << 10;

struct Bounce {
  alignas(64) unsigned char b[3][kPiece];
};

// Block r of the result, piece by piece: out = in_0 op in_1, then out = out op in_j.
Status reduce_my_block(ShmSlots& s, const CollArgs& a, int p, int r, uint64_t seq, size_t off, size_t len) {
  static thread_local std::unique_ptr<Bounce> bounce;
  if (!bounce) bounce = std::make_unique<Bounce>();
  const size_t es = dtype_size(a.dtype);
  const size_t piece = kPiece / es;
  const bool in_place = a.sendbuf == a.recvbuf;
  for (size_t done = 0; done < len; done += piece) {
    const size_t n = std::min(piece, len - done), bytes = n * es, at_b = (off + done) * es;
    unsigned char* out = static_cast<unsigned char*>(a.recvbuf) + at_b;
    const unsigned char* own = static_cast<const unsigned char*>(a.sendbuf) + at_b;
    // In place, step 1 overwrites our input before we combine it (when r >= 2): save it.
    if (in_place && r >= 2) {
      std::memcpy(bounce->b[2], own, bytes);
      own = bounce->b[2];
    }
    const auto operand = [&](int j, unsigned char* into, const unsigned char** got) -> Status {
      if (j == r) {
        *got = own;
        return Status::Ok();
      }
      *got = into;
      return s.read(j, into, s.buf(j, seq)->sendbuf + at_b, bytes);
    };
    const unsigned char *x, *y;
    NX_RETURN_IF_ERROR(operand(0, bounce->b[0], &x));
    NX_RETURN_IF_ERROR(operand(1, bounce->b[1], &y));
    reduce(out, x, y, n, a.dtype, a.op);
    for (int j = 2; j < p; ++j) {
      NX_RETURN_IF_ERROR(operand(j, bounce->b[1], &y));
      reduce(out, out, y, n, a.dtype, a.op);
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
  return 1.5 * m.alpha_us + 2 * n * f * m.beta_us_per_byte + m.reduce(n * f);
}

}  // namespace nexar::coll
