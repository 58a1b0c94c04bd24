// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// broadcast shm_split (ranks of one host with shared slots and CMA): the root copies too.
// In broadcast shm_direct every other rank reads the whole buffer from the root while the
// root waits; here each reader reads only the head of the root's buffer and the root
// writes the tail (the last count / p elements) into every reader's buffer
// (process_vm_writev) at the same time, so with every rank on a core of its own the
// copying is spread over p cores instead of p - 1 (2 ranks: each copies half, measured
// 2-4x faster at 16 MiB than one rank reading it all). With more ranks than cores the
// root's writes take a core a reader would use, which the cost model charges.
//
// Order: everyone arrives (addresses published); the root writes the tails, publishes
// block_done, publishes read_done (it reads nobody) and waits for every reader's
// read_done; a reader reads its head, publishes read_done and waits for the root's
// block_done, so no rank returns while another still copies into or out of its memory.
// A failed write breaks the communicator without block_done: the readers' waits end with
// that error rather than returning a buffer the root did not fill.
#include "collectives/algorithms.h"
#include "core/dtype.h"
#include "shm_coll/direct_round.h"

namespace nexar::coll {
namespace {

// The elements the root writes into each reader's buffer, at its end.
size_t root_share(size_t count, int p) { return count / static_cast<size_t>(p); }

// The root writes bytes [head_b, head_b + tail_b) of its buffer into every reader's
// buffer, readers in ring order from root + 1.
Status write_tails(ShmSlots& s, int p, int root, uint64_t seq, const void* buf, size_t head_b, size_t tail_b) {
  const unsigned char* src = static_cast<const unsigned char*>(buf) + head_b;
  for (int i = 1; i < p; ++i) {
    const int j = (root + i) % p;
    NX_RETURN_IF_ERROR(s.write(j, s.buf(j, seq)->recvbuf + head_b, src, tail_b));
  }
  return Status::Ok();
}

}  // namespace

Status broadcast_shm_split(CollContext& ctx, const CollArgs& a) {
  ShmSlots* s = ctx.shm_slots();
  if (!s) return Status::Ok();
  const int p = ctx.size(), r = ctx.rank();
  const size_t es = dtype_size(a.dtype);
  const size_t tail_b = root_share(a.count, p) * es, head_b = a.count * es - tail_b;
  const uint64_t seq = s->next_seq();
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, a.recvbuf, a.recvbuf, a.count));
  if (a.count == 0) return end_direct(*s, seq, Status::Ok(), kReadByNobody);
  if (r == a.root) {
    // Without block_done after a failure: the readers must not take their buffers as filled.
    if (tail_b) NX_RETURN_IF_ERROR(write_tails(*s, p, r, seq, a.recvbuf, head_b, tail_b));
    s->publish(&shm::CollSlot::block_done, seq);
    return end_direct(*s, seq, Status::Ok(), kReadByAll);
  }
  const Status st = head_b ? s->read(a.root, a.recvbuf, s->buf(a.root, seq)->sendbuf, head_b) : Status::Ok();
  NX_RETURN_IF_ERROR(end_direct(*s, seq, st, kReadByNobody));
  // The root may still be writing the tail into this rank's buffer.
  return s->wait(&shm::CollSlot::block_done, seq, a.root);
}

// With every rank on a core of its own, the root's p - 1 writes of n/p bytes run beside
// each reader's read of n(p-1)/p. With more ranks than cores they share the cores with
// the readers, whose copying then takes as long as shm_direct's, plus the root's calls.
double broadcast_shm_split_cost(const CostModel& m, int p, double n) {
  if (p > m.cores) return broadcast_shm_direct_cost(m, p, n) + (p - 1) * m.alpha_us / 4;
  return m.slot_rounds(2, p) + (p - 1) * m.alpha_us / 4 + n * (p - 1) / p * m.beta_us_per_byte;
}

}  // namespace nexar::coll
