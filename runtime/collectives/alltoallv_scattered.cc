// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Alltoallv scattered: every receive is posted, then every send (to r+1, r+2, ... so the
// first messages spread over all receivers), then all are waited for. The p - 1 message
// latencies overlap, which pays for small blocks in large worlds; for large blocks the
// receivers are flooded and pairwise wins. Wire-compatible with alltoallv_pairwise.
#include <algorithm>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/alltoallv_layout.h"

namespace nexar::coll {

Status alltoallv_scattered(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  AlltoallvLayout l(p);
  NX_RETURN_IF_ERROR(l.prepare(a, r));
  std::vector<Pending> recvs(static_cast<size_t>(p)), sends(static_cast<size_t>(p));
  for (int k = 1; k < p; ++k) {
    const int q = mod(r - k, p);
    if (const size_t rb = l.recv_bytes(a, q))
      NX_RETURN_IF_ERROR(ctx.irecv(q, kTagAlltoallv, l.recv_block(a, q), rb, &recvs[static_cast<size_t>(q)]));
  }
  for (int k = 1; k < p; ++k) {
    const int q = mod(r + k, p);
    if (const size_t sb = l.send_bytes(a, q))
      NX_RETURN_IF_ERROR(ctx.isend(q, kTagAlltoallv, l.send_block(a, q), sb, &sends[static_cast<size_t>(q)]));
  }
  for (int q = 0; q < p; ++q) {
    if (q == r) continue;
    const size_t uq = static_cast<size_t>(q);
    if (l.recv_bytes(a, q)) NX_RETURN_IF_ERROR(ctx.wait(&recvs[uq]));
    if (l.send_bytes(a, q)) NX_RETURN_IF_ERROR(ctx.wait(&sends[uq]));
  }
  return Status::Ok();
}

// n = bytes this rank sends in all. Posting overlaps the latencies (a for the first, a/4
// for each further one); p - 1 senders at once cost the receivers a quarter more per byte,
// and with more ranks than cores the flood waits for the receivers to be scheduled: the
// bytes cost p / cores times more (8 ranks on 2 cores, shared memory: 3-3.5x pairwise's
// time at 64 KiB and 1 MiB per rank).
double alltoallv_scattered_cost(const CostModel& m, int p, double n) {
  const double flood = std::max(1.25, static_cast<double>(p) / std::max(m.cores, 1));
  return m.xfer(1 + (p - 2) / 4.0, flood * n * (p - 1) / p);
}

}  // namespace nexar::coll
