// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Alltoallv by direct reads (CMA), for ranks of one host with shared slots:
//  1. every rank publishes (arrive) where its send data lies and a table of what it sends
//     and expects per peer: {sendcounts[j], sdispls[j], recvcounts[j]} for each j;
//  2. it reads row r of every peer's table (one 24-byte read each) and checks each pair
//     as vcount_check.h does, both ways; if all agree, it reads each block straight from
//     the peer's send buffer into its receive buffer (peers from r + 1 on, so the readers
//     of one rank spread out);
//  3. publishes read_done and waits for every member's (until then peers read this rank's
//     table and memory), and only then returns, the mismatch it found included.
// Two slot rounds and one copy per byte, no messages: it does its own pair check, so
// select_and_run skips the message-based one (AlgoDesc::checks_counts). Both ranks of a
// pair that disagrees fail with the same text and write nothing; the others may complete
// (their pairs agree) and learn of the break at their next call.
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/alltoallv_layout.h"
#include "shm_coll/direct_round.h"
#include "collectives/vcount_check.h"

namespace nexar::coll {

Status alltoallv_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  AlltoallvLayout l(p);
  NX_RETURN_IF_ERROR(l.prepare(a, r, /*own_block=*/false));
  ShmSlots* s = ctx.shm_slots();
  if (!s) {  // one rank: its own block is all
    l.copy_own(a, r);
    return Status::Ok();
  }
  const size_t es = dtype_size(a.dtype);
  std::vector<uint64_t> table(3 * static_cast<size_t>(p));
  for (int j = 0; j < p; ++j) {
    uint64_t* row = &table[3 * static_cast<size_t>(j)];
    row[0] = a.sendcounts[j], row[1] = a.sdispls[j], row[2] = a.recvcounts[j];
  }
  const uint64_t seq = s->next_seq();
  // recvbuf: here the table's address
  NX_RETURN_IF_ERROR(arrive_direct(*s, r, seq, l.send_base(), table.data(), 0));
  std::vector<uint64_t> from(static_cast<size_t>(p));  // where j's block for r starts
  Status st;
  for (int k = 1; k < p && st.ok(); ++k) {
    const int j = (r + k) % p;
    uint64_t row[3];  // j's sendcounts[r], sdispls[r], recvcounts[r]
    st = s->read(j, row, s->buf(j, seq)->recvbuf + 3 * static_cast<uint64_t>(r) * sizeof(uint64_t), sizeof row);
    if (st.ok()) st = check_pair_counts(a, j, row[0], a.recvcounts[j], r, a.sendcounts[j], row[2]);
    from[static_cast<size_t>(j)] = s->buf(j, seq)->sendbuf + row[1] * es;
  }
  if (st.ok()) l.copy_own(a, r);
  for (int k = 1; k < p && st.ok(); ++k) {
    const int j = (r + k) % p;
    if (a.recvcounts[j]) st = s->read(j, l.recv_block(a, j), from[static_cast<size_t>(j)], a.recvcounts[j] * es);
  }
  return end_direct(*s, seq, st, kReadByAll);
}

// Two slot rounds, then p - 1 small reads (a/4 each) and n(p-1)/p bytes copied once.
double alltoallv_shm_direct_cost(const CostModel& m, int p, double n) {
  return m.slot_rounds(2, p) + (p - 1) * m.alpha_us / 4 + n * (p - 1) / p * m.beta_us_per_byte;
}

}  // namespace nexar::coll
