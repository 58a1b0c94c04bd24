// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Every fixed-count collective on a communicator of one rank (a split into groups of one,
// say): the result is the rank's own input, so the call is one local copy to where the
// result goes (nothing in place, or for a broadcast or barrier), with no message, no slot
// round and no scratch buffer. Results are those of the many-rank algorithms run with one
// rank: AVG divides by 1 (reduce_finalize), an exscan gets the op's identity.
#include "collectives/one_rank.h"

#include "collectives/coll_util.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {

const char* one_rank_why_not(int p, const CollArgs& /*args*/) {
  return p == 1 ? nullptr : "it runs only on a communicator of one rank";
}

Status one_rank(CollContext& /*ctx*/, const CollArgs& a) { return one_rank_copy(a); }

size_t one_rank_plain_bytes(const CollArgs& a) {
  switch (a.kind) {
    case CollKind::BARRIER:
    case CollKind::BROADCAST:
      return 0;
    case CollKind::ALLREDUCE:
    case CollKind::REDUCE:
    case CollKind::SCAN:
      if (a.op == NEXAR_AVG) return kNotPlain;
      [[fallthrough]];
    case CollKind::ALLGATHER:
    case CollKind::GATHER:
    case CollKind::SCATTER:
    case CollKind::REDUCE_SCATTER:
    case CollKind::ALLTOALL:
      // The one block (in place: sendbuf == recvbuf, already where it belongs).
      return a.sendbuf == a.recvbuf ? 0 : a.count * dtype_size(a.dtype);
    default:
      return kNotPlain;
  }
}

Status one_rank_copy(const CollArgs& a) {
  if (const size_t plain = one_rank_plain_bytes(a); plain != kNotPlain) {
    copy_bytes(a.recvbuf, a.sendbuf, plain);
    return Status::Ok();
  }
  switch (a.kind) {
    case CollKind::EXSCAN:
      fill_identity(a.recvbuf, a.count, a.dtype, a.op);
      return Status::Ok();
    case CollKind::ALLREDUCE:
    case CollKind::REDUCE:
    case CollKind::SCAN:  // AVG: the copy divided by 1
      copy_elems(a.recvbuf, a.sendbuf, a.count, dtype_size(a.dtype));
      reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, 1);
      return Status::Ok();
    default:
      return invalid(a, "no one-rank form for this collective");
  }
}

double one_rank_cost(const CostModel& /*m*/, int /*p*/, double /*n*/) { return 0; }

}  // namespace nexar::coll
