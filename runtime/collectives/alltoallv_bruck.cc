// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Alltoallv by Bruck's ceil(log2 p) rounds, for small blocks in large worlds. Slot i of
// rank r starts with r's block for (r + i) mod p; in round k every rank sends the slots
// whose index has bit k set to (r + 2^k) mod p, packed into one message, and receives the
// same slots from (r - 2^k) mod p. A block moves 2^k ranks on for each bit of its
// distance, so after the last round slot i holds the block from (r - i) mod p. Any p
// works: the slots are [1, p), whatever their highest bit.
//
// A rank forwarding a block does not know its size, so the counts go first, by the same
// rounds: a block's counts (what its source sends its destination, what the source
// expects back) take the route the block's data takes, so round k of the counts tells
// each receiver the sizes of the blocks round k of the data brings. At the end each rank
// holds both counts of every pair it belongs to, which is the pair check (vcount_check.h:
// same judgement, same text on both ranks of a disagreeing pair), and each message also
// carries the largest total any rank sends seen so far, so every rank ends with the same
// maximum. That agreed maximum decides the data phase (the counts differ between ranks,
// so nothing else about the size is known alike): Bruck's forwarding unless the model
// prices it above the pairwise exchange (alltoallv_pairwise), which then moves the data
// directly. NEXAR_ALGO=alltoallv:bruck always forwards.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/alltoallv_layout.h"
#include "collectives/select.h"
#include "collectives/vcount_check.h"

namespace nexar::coll {
namespace {

constexpr int kTagBruckCounts = 211, kTagBruckData = 212;

// The slots that move in round k (those with bit k of their index set), in order.
std::vector<int> moving(int p, int k) {
  std::vector<int> out;
  for (int i = 1; i < p; ++i)
    if ((i >> k) & 1) out.push_back(i);
  return out;
}

int rounds(int p) { return ceil_log2(p); }

// Sends sb bytes to dst while receiving rb from src; an empty direction sends nothing
// (both ends know the sizes, so they skip alike).
Status exchange(CollContext& ctx, int tag, int dst, const void* sbuf, size_t sb, int src, void* rbuf, size_t rb) {
  Pending s, rv;
  if (rb) NX_RETURN_IF_ERROR(ctx.irecv(src, tag, rbuf, rb, &rv));
  const Status st = sb ? ctx.isend(dst, tag, sbuf, sb, &s) : Status::Ok();
  const Status rs = rb ? ctx.wait(&rv) : Status::Ok();  // reaped even if the send failed
  NX_RETURN_IF_ERROR(st);
  const Status ss = sb ? ctx.wait(&s) : Status::Ok();
  return rs.ok() ? ss : rs;
}

// What the count rounds leave on a rank.
struct Counts {
  // Slot i: what rank (r - i) mod p sends rank r and expects from it (elements).
  std::vector<uint64_t> send, recv;
  // arriving[k][j]: bytes of the j-th moving slot's block in round k of the data.
  std::vector<std::vector<size_t>> arriving;
  uint64_t most = 0;  // the most bytes any rank sends in all (the same on every rank)
  int done = 0;       // count rounds completed
};

Status exchange_counts(CollContext& ctx, const CollArgs& a, size_t es, Counts* c) {
  const int p = ctx.size(), r = ctx.rank();
  c->send.assign(static_cast<size_t>(p), 0);
  c->recv.assign(static_cast<size_t>(p), 0);
  for (int i = 0; i < p; ++i) {
    const int dst = (r + i) % p;
    c->send[static_cast<size_t>(i)] = a.sendcounts[dst];
    c->recv[static_cast<size_t>(i)] = a.recvcounts[dst];
    c->most += a.sendcounts[dst] * es;
  }
  c->arriving.assign(static_cast<size_t>(rounds(p)), {});
  std::vector<uint64_t> out, in;  // the running maximum, then two counts per moving slot
  for (int k = 0; k < rounds(p); ++k) {
    const std::vector<int> mv = moving(p, k);
    out.assign(1, c->most);
    for (int i : mv) {
      out.push_back(c->send[static_cast<size_t>(i)]);
      out.push_back(c->recv[static_cast<size_t>(i)]);
    }
    in.assign(out.size(), 0);
    const int d = 1 << k;
    NX_RETURN_IF_ERROR(exchange(ctx, kTagBruckCounts, (r + d) % p, out.data(), out.size() * sizeof(uint64_t),
                                mod(r - d, p), in.data(), in.size() * sizeof(uint64_t)));
    c->most = std::max(c->most, in[0]);
    std::vector<size_t>& arr = c->arriving[static_cast<size_t>(k)];
    for (size_t j = 0; j < mv.size(); ++j) {
      const size_t i = static_cast<size_t>(mv[j]);
      c->send[i] = in[1 + 2 * j];
      c->recv[i] = in[2 + 2 * j];
      arr.push_back(static_cast<size_t>(c->send[i]) * es);
    }
    c->done = k + 1;
  }
  return Status::Ok();
}

// The pair check from the counts every pair's blocks brought: the first disagreement, in
// rank order, as check_vector_counts words it. Only the slots whose block has arrived
// (all of them once every round is done; after round k those below 2^(k+1)).
Status judge(const CollArgs& a, int r, int p, const Counts& c) {
  for (int j = 0; j < p; ++j) {
    const size_t i = static_cast<size_t>(mod(r - j, p));
    if (j == r || i >= (size_t{1} << c.done)) continue;
    NX_RETURN_IF_ERROR(check_pair_counts(a, j, c.send[i], a.recvcounts[j], r, a.sendcounts[j], c.recv[i]));
  }
  return Status::Ok();
}

// The data rounds. A block that still has rounds to go after arriving is kept in its
// slot's part of one staging buffer, sized from the counts (each slot's largest such
// block), until it is packed again; a block on its last hop goes to the receive buffer.
Status forward_blocks(CollContext& ctx, const CollArgs& a, const Counts& c) {
  const int p = ctx.size(), r = ctx.rank(), nr = rounds(p);
  const size_t up = static_cast<size_t>(p);
  AlltoallvLayout l(p);
  NX_RETURN_IF_ERROR(l.prepare(a, r));
  std::vector<const unsigned char*> where(up, nullptr);
  std::vector<size_t> bytes(up, 0);
  for (int i = 1; i < p; ++i) {
    where[static_cast<size_t>(i)] = l.send_block(a, (r + i) % p);
    bytes[static_cast<size_t>(i)] = l.send_bytes(a, (r + i) % p);
  }
  // Sizes first: each slot's staging part and the largest message each way.
  std::vector<size_t> held(bytes), cap(up, 0), off(up, 0);
  size_t most_out = 0, most_in = 0;
  for (int k = 0; k < nr; ++k) {
    const std::vector<int> mv = moving(p, k);
    size_t sb = 0, rb = 0;
    for (size_t j = 0; j < mv.size(); ++j) {
      const size_t i = static_cast<size_t>(mv[j]), n = c.arriving[static_cast<size_t>(k)][j];
      sb += held[i];
      rb += n;
      held[i] = n;
      if (i >> (k + 1)) cap[i] = std::max(cap[i], n);  // forwarded again later
    }
    most_out = std::max(most_out, sb);
    most_in = std::max(most_in, rb);
  }
  size_t staged = 0;
  for (size_t i = 0; i < up; ++i) {
    off[i] = staged;
    staged += cap[i];
  }
  TempBuf stage, sbuf, rbuf;
  NX_RETURN_IF_ERROR(stage.alloc(staged, "alltoallv bruck staging"));
  NX_RETURN_IF_ERROR(sbuf.alloc(most_out, "alltoallv bruck send"));
  NX_RETURN_IF_ERROR(rbuf.alloc(most_in, "alltoallv bruck receive"));
  for (int k = 0; k < nr; ++k) {
    const std::vector<int> mv = moving(p, k);
    const std::vector<size_t>& arr = c.arriving[static_cast<size_t>(k)];
    size_t sb = 0, rb = 0;
    for (int i : mv) {
      const size_t ui = static_cast<size_t>(i);
      if (bytes[ui]) std::memcpy(sbuf.data() + sb, where[ui], bytes[ui]);
      sb += bytes[ui];
    }
    for (size_t n : arr) rb += n;
    const int d = 1 << k;
    NX_RETURN_IF_ERROR(exchange(ctx, kTagBruckData, (r + d) % p, sbuf.data(), sb, mod(r - d, p), rbuf.data(), rb));
    size_t pos = 0;
    for (size_t j = 0; j < mv.size(); ++j) {
      const size_t i = static_cast<size_t>(mv[j]), n = arr[j];
      unsigned char* dst = (i >> (k + 1)) ? stage.data() + off[i] : l.recv_block(a, mod(r - mv[j], p));
      if (n) std::memcpy(dst, rbuf.data() + pos, n);
      where[i] = dst;
      bytes[i] = n;
      pos += n;
    }
  }
  return Status::Ok();
}

// The data rounds alone: each moves about half of a rank's bytes.
double forward_cost(const CostModel& m, int p, double n) {
  const int L = rounds(p);
  return m.xfer(L, L * n / 2);
}

}  // namespace

Status alltoallv_bruck(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  Counts c;
  // The other rank of a disagreeing pair may fail first and abort the communicator while
  // this one still waits: the pairs already through are judged all the same, so this
  // rank reports the mismatch it knows of rather than the abort.
  const Status counted = exchange_counts(ctx, a, dtype_size(a.dtype), &c);
  NX_RETURN_IF_ERROR(judge(a, r, p, c));
  NX_RETURN_IF_ERROR(counted);
  const CostModel m = message_cost_model(CollKind::ALLTOALLV, ctx.transport(), p, ctx.cores());
  if (!algo_forced(CollKind::ALLTOALLV, "bruck") && !alltoallv_bruck_forwards(m, p, static_cast<double>(c.most)))
    return alltoallv_pairwise(ctx, a);
  return forward_blocks(ctx, a, c);
}

bool alltoallv_bruck_forwards(const CostModel& m, int p, double most) {
  return forward_cost(m, p, most) <= alltoallv_pairwise_cost(m, p, most);
}

// n = bytes this rank sends in all. The count rounds (8 bytes per slot and a word) and then
// the cheaper of the two data phases.
double alltoallv_bruck_cost(const CostModel& m, int p, double n) {
  const int L = rounds(p);
  return m.xfer(L, 8.0 * p * L + 8.0 * L) + std::min(forward_cost(m, p, n), alltoallv_pairwise_cost(m, p, n));
}

}  // namespace nexar::coll
