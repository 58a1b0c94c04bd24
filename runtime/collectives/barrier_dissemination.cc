// Barrier by dissemination: in round k rank r signals r + 2^k and waits for r - 2^k;
// after ceil(log2 p) rounds every rank has heard, directly or not, from every other.
#include "collectives/algorithms.h"

namespace nexar::coll {

Status barrier_dissemination(CollContext& ctx, const CollArgs&) {
  const int p = ctx.size(), r = ctx.rank();
  unsigned char out = 1, in = 0;
  for (int d = 1; d < p; d <<= 1)
    NX_RETURN_IF_ERROR(ctx.sendrecv(mod(r + d, p), 161, &out, 1, mod(r - d, p), 161, &in, 1));
  return Status::Ok();
}

double barrier_dissemination_cost(const CostModel& m, int p, double) { return m.xfer(ceil_log2(p), 0); }

}  // namespace nexar::coll
