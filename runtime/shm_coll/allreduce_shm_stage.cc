// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce (and reduce) through a shared staging segment (shm_coll/stage_segment.h), for
// ranks of one host that may read each other's memory (CMA):
//  1. every rank publishes its sendbuf address and, where the segment it already maps has
//     room for (p + 1) strides of n bytes, copies its input into its own input area first
//     (memcpy: no page pinning, no system call) and says so; rank 0 also publishes the
//     segment (grown when needed) and resets its work counter; arrive;
//  2. the vector is cut into chunks; every rank claims chunks from the shared counter
//     until none is left and reduces each into the segment's result area, reading the
//     members' inputs in rank order 0..p-1: its own where it lies, staged ones in the
//     segment, the others by CMA into a cache-resident bounce buffer; publishes block_done;
//  3. once every member's block_done, copies the result out of the segment and returns
//     (reduce: the root only).
// Two slot rounds instead of shm_direct's three. With more ranks than cores, the ranks
// that run do the work of those that wait for a core. Every chunk is reduced once, in one
// order, into the one copy all ranks read: the same bits everywhere.
// Reuse is safe without a third round: inputs (sendbufs, input areas) are read only before
// block_done, after which their owner may stage its next input; the result area and the
// counter are rewritten only after every member arrived at the next collective, i.e.
// finished copying this one out.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "collectives/algorithms.h"
#include "shm_coll/shm_slots.h"
#include "core/dtype.h"
#include "core/params.h"
#include "core/reduce.h"
#include "shm_coll/stage_segment.h"

namespace nexar::coll {
namespace {
constexpr size_t kMaxChunk = 256u << 10;
constexpr size_t kMinChunk = 16u << 10;

// What a rank publishes inline in its slot: the segment and the chunk length in elements
// (rank 0 only: every rank claims chunks of rank 0's length, whatever its own parameters
// say), and the token of the segment its input is staged in (0: not staged).
struct SlotInfo {
  shm::StageRef ref;
  uint64_t chunk;
  uint64_t staged;
};

// The segment's layout depends on its size only, never on a call's n: slow ranks may still
// copy the last result out while others stage their next inputs. Result area at 0, input
// area j at stride * (j + 1), stride = bytes / (p + 1) (whole lines).
size_t stride_of(const shm::StageSegment& seg, int p) { return seg.bytes() / (static_cast<size_t>(p) + 1) / 64 * 64; }
size_t staged_bytes(size_t n, int p) { return (n + 63) / 64 * 64 * (static_cast<size_t>(p) + 1); }
bool may_stage(size_t n, int p) {
  return n > 0 && staged_bytes(n, p) <= static_cast<size_t>(param::NEXAR_SHM_STAGE_BYTES.get());
}

SlotInfo* info(ShmSlots& s, int r, uint64_t seq) { return reinterpret_cast<SlotInfo*>(s.buf(r, seq)->data()); }

struct Bounce {
  alignas(64) unsigned char b[kMaxChunk];
};

// Capacity for n bytes: powers of two from 1 MiB, so a growing size remaps rarely.
size_t capacity_for(size_t n) {
  size_t c = size_t{1} << 20;
  while (c < n) c <<= 1;
  return c;
}

// Chunk bytes: NEXAR_SHM_STAGE_CHUNK, or about two chunks per rank (more claims than
// ranks balance the work), whole pages, 16-256 KiB (a CMA call per piece and member).
size_t chunk_bytes(size_t n, int p) {
  const int64_t forced = param::NEXAR_SHM_STAGE_CHUNK.get();
  if (forced > 0) return std::min(static_cast<size_t>(forced), kMaxChunk);
  const size_t want = (n / (2 * static_cast<size_t>(p)) + 4095) / 4096 * 4096;
  return std::clamp(want, kMinChunk, kMaxChunk);
}

// This thread's cache-resident buffer for inputs read by CMA.
unsigned char* bounce_buffer() {
  static thread_local std::unique_ptr<Bounce> bounce;
  if (!bounce) bounce = std::make_unique<Bounce>();
  return bounce->b;
}

// Member j's input at byte at_b (bytes of it): ours where it lies, staged in the segment,
// or read by CMA into the bounce buffer.
Status input_of(ShmSlots& s, const CollArgs& a, int p, int me, int j, uint64_t seq, const shm::StageSegment& seg,
                size_t at_b, size_t bytes, const unsigned char** in) {
  if (j == me) {
    *in = static_cast<const unsigned char*>(a.sendbuf) + at_b;
    return Status::Ok();
  }
  if (info(s, j, seq)->staged == seg.ref().token) {
    *in = seg.data() + stride_of(seg, p) * (static_cast<size_t>(j) + 1) + at_b;
    return Status::Ok();
  }
  *in = bounce_buffer();
  return s.read(j, bounce_buffer(), s.buf(j, seq)->sendbuf + at_b, bytes);
}

// Chunk [off, off + len) elements of the result into the result area, inputs in rank order.
Status reduce_chunk(ShmSlots& s, const CollArgs& a, int p, int me, uint64_t seq, const shm::StageSegment& seg,
                    size_t off, size_t len) {
  const size_t es = dtype_size(a.dtype), bytes = len * es, at_b = off * es;
  unsigned char* out = seg.data() + at_b;
  const unsigned char* in = nullptr;
  NX_RETURN_IF_ERROR(input_of(s, a, p, me, 0, seq, seg, at_b, bytes, &in));
  int j = 1;
  if (p > 1 && in != bounce_buffer()) {  // out = in_0 op in_1 at once, no copy
    const unsigned char* in1 = nullptr;
    NX_RETURN_IF_ERROR(input_of(s, a, p, me, 1, seq, seg, at_b, bytes, &in1));
    reduce(out, in, in1, len, a.dtype, a.op);
    j = 2;
  } else {
    copy_bytes(out, in, bytes);
  }
  for (; j < p; ++j) {
    NX_RETURN_IF_ERROR(input_of(s, a, p, me, j, seq, seg, at_b, bytes, &in));
    reduce(out, out, in, len, a.dtype, a.op);
  }
  reduce_finalize(out, len, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

// Step 2: claims and reduces chunks until none is left.
Status reduce_claimed(ShmSlots& s, const CollArgs& a, int p, int me, uint64_t seq, shm::StageSegment& seg) {
  const size_t es = dtype_size(a.dtype);
  const size_t ce = info(s, 0, seq)->chunk;
  if (ce == 0 || ce * es > kMaxChunk)
    return Status(NEXAR_ERR_INTERNAL, strprintf("comm rank 0 published a chunk of %zu elements", ce));
  const uint64_t chunks = (a.count + ce - 1) / ce;
  for (;;) {
    const uint64_t c = seg.header()->claim.fetch_add(1, std::memory_order_relaxed);
    if (c >= chunks) return Status::Ok();
    const size_t off = c * ce, len = std::min(ce, a.count - off);
    NX_RETURN_IF_ERROR(reduce_chunk(s, a, p, me, seq, seg, off, len));
  }
}

// Step 1 on rank 0: a segment of at least the bytes n needs, its counter reset, its ref
// published. On failure the ref says bytes 0 and every rank returns the error after arriving.
Status prepare_owner(ShmSlots& s, shm::StageSegment& seg, uint64_t seq, size_t n, size_t es, int p) {
  Status st;
  const size_t need = may_stage(n, p) ? staged_bytes(n, p) : n;
  const bool ours = seg.ref().pid == static_cast<uint64_t>(::getpid());  // not a mapping of an earlier owner's
  if (!ours || seg.bytes() < need) st = seg.create(capacity_for(need));
  if (st.ok()) seg.header()->claim.store(0, std::memory_order_relaxed);
  info(s, 0, seq)->ref = st.ok() ? seg.ref() : shm::StageRef{};
  info(s, 0, seq)->chunk = std::max<size_t>(1, chunk_bytes(n, p) / es);
  return st;
}

// Step 1 on every rank: its input into its input area of the segment it maps, if it fits.
void stage_input(ShmSlots& s, const CollArgs& a, const shm::StageSegment& seg, uint64_t seq, int r, int p) {
  const size_t n = a.count * dtype_size(a.dtype);
  uint64_t staged = 0;
  if (may_stage(n, p) && stride_of(seg, p) >= n) {
    copy_bytes(seg.data() + stride_of(seg, p) * (static_cast<size_t>(r) + 1), a.sendbuf, n);
    staged = seg.ref().token;
  }
  info(s, r, seq)->staged = staged;
}

// Step 1 on the other ranks, after arrive: the owner's segment mapped.
Status map_members(ShmSlots& s, shm::StageSegment& seg, uint64_t seq, size_t n) {
  const shm::StageRef ref = info(s, 0, seq)->ref;
  if (ref.bytes == 0) return Status(NEXAR_ERR_SYSTEM, "comm rank 0 could not create the staging segment");
  if (!seg.matches(ref)) NX_RETURN_IF_ERROR(seg.open(ref));
  if (seg.bytes() < n) return Status(NEXAR_ERR_SYSTEM, "the staging segment is smaller than the payload");
  return Status::Ok();
}

}  // namespace

const char* allreduce_shm_stage_why_not(int, const CollArgs& args) {
  const double n = static_cast<double>(args.count) * static_cast<double>(dtype_size(args.dtype));
  return n > static_cast<double>(param::NEXAR_SHM_STAGE_MAX.get()) ? "the payload is larger than NEXAR_SHM_STAGE_MAX"
                                                                          : nullptr;
}

namespace {

// The three steps; the ranks with `copy_out` copy the result into their recvbuf. `direct`
// runs where the slots are too small for the segment's ref.
Status stage_and_reduce(CollContext& ctx, const CollArgs& a, bool copy_out,
                        Status (*direct)(CollContext&, const CollArgs&)) {
  const size_t es = dtype_size(a.dtype), n = a.count * es;
  ShmSlots* s = ctx.shm_slots();
  if (!s) {  // one rank
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    return Status::Ok();
  }
  // The ref travels inline in rank 0's slot; NEXAR_SHM_COLL_INLINE is alike on every rank.
  if (s->inline_bytes() < sizeof(SlotInfo)) return direct(ctx, a);
  const int p = ctx.size(), r = ctx.rank();
  const uint64_t seq = s->next_seq();
  shm::StageSegment& seg = s->stage_segment();
  shm::CollSlotBuf* mine = s->buf(r, seq);
  mine->sendbuf = reinterpret_cast<uint64_t>(a.sendbuf);
  mine->recvbuf = reinterpret_cast<uint64_t>(a.recvbuf);
  Status owner = r == 0 ? prepare_owner(*s, seg, seq, n, es, p) : Status::Ok();
  stage_input(*s, a, seg, seq, r, p);
  NX_RETURN_IF_ERROR(s->arrive(seq, a.count));
  NX_RETURN_IF_ERROR(owner);
  if (n == 0) return Status::Ok();
  // A rank that cannot map the segment claims nothing but lets the others finish (they
  // read its sendbuf until block_done) before it reports why. A failed chunk is not
  // published: the others' waits end with the communicator's error or the deadline.
  if (r != 0) {
    if (Status st = map_members(*s, seg, seq, n); !st.ok()) {
      s->publish(&shm::CollSlot::block_done, seq);
      NX_RETURN_IF_ERROR(s->wait(&shm::CollSlot::block_done, seq));
      return st;
    }
  }
  NX_RETURN_IF_ERROR(reduce_claimed(*s, a, p, r, seq, seg));
  s->publish(&shm::CollSlot::block_done, seq);
  NX_RETURN_IF_ERROR(s->wait(&shm::CollSlot::block_done, seq));
  if (copy_out) copy_bytes(a.recvbuf, seg.data(), n);
  return Status::Ok();
}

}  // namespace

Status allreduce_shm_stage(CollContext& ctx, const CollArgs& a) {
  return stage_and_reduce(ctx, a, true, allreduce_shm_direct);
}
// The root's time is allreduce's; the others skip the copy out.
Status reduce_shm_stage(CollContext& ctx, const CollArgs& a) {
  return stage_and_reduce(ctx, a, ctx.rank() == a.root, reduce_shm_direct);
}
double reduce_shm_stage_cost(const CostModel& m, int p, double n) { return allreduce_shm_stage_cost(m, p, n); }

// Two slot rounds (a/2 each); every rank copies its input in and the result out (2n
// bytes, memcpy: b / c per byte while the call's data, every member's input and output
// and the segment, fit the cache, else b) where (p + 1) n fits the segment, else reads
// n(p-1)/p by CMA (b per byte, as the other shared-memory algorithms' large transfers) and
// copies n out; and reduces n(p-1)/p. Of what it reads, the others' staged inputs to its
// chunks and their chunks of the result (2n(p-1)/p) were written by ranks on other cores:
// CostModel::remote_write_extra more per byte while each rank's input, staged copy,
// result area and output (4n) fit a core's own cache. With more ranks than cores the
// ranks that hold one reduce while the others copy, wait or sleep: only the last chunk's
// reduction is exposed (as ring_pipelined counts one segment's).
double allreduce_shm_stage_cost(const CostModel& m, int p, double n) {
  const double f = (p - 1.0) / p;
  const bool staged = n * (p + 1) <= static_cast<double>(m.stage_bytes);
  const double copy = m.cached_copy_beta((3.0 * p + 1) * n);
  const double cost = staged ? 2 * n * copy + 2 * n * f * m.remote_write_extra(4 * n, p)
                             : n * f * m.beta_us_per_byte + n * copy;
  const double chunk = static_cast<double>(chunk_bytes(static_cast<size_t>(n), p));
  const double reduced = p > m.cores ? std::min(n * f, chunk) : n * f;
  return m.slot_rounds(2, p) + cost + m.reduce(reduced);
}

}  // namespace nexar::coll
