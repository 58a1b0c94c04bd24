#include "comm/barrier.h"

namespace nexar::comm {

Status dissemination_barrier(coll::CollContext& ctx) {
  const int n = ctx.size(), r = ctx.rank();
  for (int dist = 1, round = 0; dist < n; dist *= 2, ++round) {
    const int to = (r + dist) % n, from = (r - dist + n) % n;
    NX_RETURN_IF_ERROR(ctx.sendrecv(to, round, nullptr, 0, from, round, nullptr, 0));
  }
  return Status::Ok();
}

}  // namespace nexar::comm
