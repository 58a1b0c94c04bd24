// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Allreduce by pipelined ring, for large messages. The ring of allreduce_ring.cc, with
// every block cut into nseg segments on element boundaries (segment j of a block of len
// elements is Blocks{len, nseg} block j: every element in exactly one segment). The
// 2(p-1) steps x nseg segments form one stream of units u = step * nseg + seg; unit u
// forwards what unit u - nseg received, so segment j of step s+1 leaves as soon as
// segment j of step s has arrived and been reduced: transfer and reduction overlap, and
// up to `depth` receives are posted ahead into fixed slots (depth segments of memory).
#include <deque>
#include <vector>

#include "collectives/algorithms.h"
#include "core/dtype.h"
#include "core/params.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {

constexpr int kTag = 12;

struct Plan {
  int p, r, nseg, depth;
  size_t es, slot_elems;
  Blocks blocks;
  size_t units() const { return static_cast<size_t>(2 * (p - 1)) * static_cast<size_t>(nseg); }
  int step(size_t u) const { return static_cast<int>(u / static_cast<size_t>(nseg)); }
  int seg(size_t u) const { return static_cast<int>(u % static_cast<size_t>(nseg)); }
  int send_block(size_t u) const { return mod(r - 1 - step(u), p); }
  int recv_block(size_t u) const { return mod(r - 2 - step(u), p); }
  // Element offset and length of segment j of block b.
  size_t seg_off(int b, int j) const { return blocks.off(b) + Blocks{blocks.len(b), nseg}.off(j); }
  size_t seg_len(int b, int j) const { return Blocks{blocks.len(b), nseg}.len(j); }
};

Plan make_plan(const CollArgs& a, int p, int r, const CostModel& m) {
  Plan pl{};
  pl.p = p;
  pl.r = r;
  pl.es = dtype_size(a.dtype);
  pl.blocks = Blocks{a.count, p};
  const size_t maxlen = pl.blocks.len(0);
  size_t seg_elems = m.segment_bytes / pl.es;
  if (seg_elems == 0) seg_elems = 1;
  size_t nseg = (maxlen + seg_elems - 1) / seg_elems;
  if (nseg == 0) nseg = 1;
  if (nseg > (1u << 30)) nseg = 1u << 30;
  pl.nseg = static_cast<int>(nseg);
  pl.slot_elems = (maxlen + nseg - 1) / nseg;
  pl.depth = m.pipeline_depth;
  return pl;
}

struct SentUnit {
  size_t unit;
  Pending pending;
};

}  // namespace

Status allreduce_ring_pipelined(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size();
  const size_t es = dtype_size(a.dtype);
  if (p == 1) {
    copy_elems(a.recvbuf, a.sendbuf, a.count, es);
    reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, 1);
    return Status::Ok();
  }
  const Plan pl = make_plan(a, p, ctx.rank(), cost_model_from_params(CollTransport::NETWORK));
  const size_t total = pl.units();
  const size_t depth = static_cast<size_t>(pl.depth) < total ? static_cast<size_t>(pl.depth) : total;
  TempBuf slots;
  NX_RETURN_IF_ERROR(slots.alloc(depth * pl.slot_elems * es, "pipelined ring receive slots"));
  const int right = mod(pl.r + 1, p), left = mod(pl.r - 1, p);
  std::vector<Pending> recvs(depth);
  std::deque<SentUnit> sends;
  auto slot = [&](size_t u) { return slots.data() + (u % depth) * pl.slot_elems * es; };
  // Waits for sends of units below `before`, and for the oldest while more than
  // keep_at_most are in flight.
  auto retire_sends = [&](size_t before, size_t keep_at_most) -> Status {
    while (!sends.empty() && (sends.front().unit < before || sends.size() > keep_at_most)) {
      SentUnit s = sends.front();
      sends.pop_front();
      NX_RETURN_IF_ERROR(ctx.wait(&s.pending));
    }
    return Status::Ok();
  };
  const size_t ag_lag = static_cast<size_t>(p - 1) * static_cast<size_t>(pl.nseg);
  size_t posted = 0;
  // Empty segments (counts below p * nseg) still travel, as empty messages: skipping them
  // could let a rank finish without hearing from every rank (AlgoDesc::hears_all).
  for (size_t u = 0; u < total; ++u) {
    for (; posted < total && posted < u + depth; ++posted) {  // receives run `depth` units ahead
      const size_t len = pl.seg_len(pl.recv_block(posted), pl.seg(posted));
      NX_RETURN_IF_ERROR(ctx.irecv(left, kTag, slot(posted), len * es, &recvs[posted % depth]));
    }
    // Send unit u: step 0 sends this rank's own data, later steps what unit u - nseg left.
    const int sb = pl.send_block(u), j = pl.seg(u);
    const size_t slen = pl.seg_len(sb, j);
    const void* src = pl.step(u) == 0 ? at(a.sendbuf, pl.seg_off(sb, j), es) : at(a.recvbuf, pl.seg_off(sb, j), es);
    SentUnit su{u, Pending{}};
    NX_RETURN_IF_ERROR(ctx.isend(right, kTag, src, slen * es, &su.pending));
    sends.push_back(su);
    NX_RETURN_IF_ERROR(retire_sends(0, depth));
    // Receive unit u and fold it into recvbuf.
    const int rb = pl.recv_block(u), s = pl.step(u);
    const size_t rlen = pl.seg_len(rb, j);
    NX_RETURN_IF_ERROR(ctx.wait(&recvs[u % depth]));
    if (rlen == 0) continue;
    unsigned char* dst = at(a.recvbuf, pl.seg_off(rb, j), es);
    if (s < p - 1) {
      reduce(dst, slot(u), at(a.sendbuf, pl.seg_off(rb, j), es), rlen, a.dtype, a.op);
      if (s == p - 2) reduce_finalize(dst, rlen, a.dtype, a.op, static_cast<size_t>(p));  // block r is final
    } else {
      // Allgather phase: this region was last sent ag_lag units ago; that send must be done.
      NX_RETURN_IF_ERROR(retire_sends(u - ag_lag + 1, depth));
      copy_elems(dst, slot(u), rlen, es);
    }
  }
  return retire_sends(total, 0);
}

// Like the ring, but the reduction of all but one segment hides behind the transfer (where
// it can: not over shared memory, cost_model.h) and the segments add (nseg - 1)
// pipeline-fill latencies.
double allreduce_ring_pipelined_cost(const CostModel& m, int p, double n) {
  const double f = static_cast<double>(p - 1) / p;
  const double block = n / p;
  const double nseg = block > static_cast<double>(m.segment_bytes) ? block / static_cast<double>(m.segment_bytes) : 1.0;
  const double seg = block / nseg;
  return m.xfer(2.0 * (p - 1) + (nseg - 1), 2 * n * f) + m.reduce(m.reduce_overlaps_transfer ? seg : n * f) +
         m.reduced_results_extra(p, n);
}

}  // namespace nexar::coll
