// The one entry point the communicator layer calls for every collective, and the purely
// local argument check the API layer runs before anything is sent.
//
// Counts per kind (elements of dtype):
//   ALLREDUCE, BROADCAST, REDUCE, SCAN, EXSCAN: count = the vector length.
//   ALLGATHER, GATHER: count = elements each rank contributes (recvbuf holds size*count).
//   SCATTER, REDUCE_SCATTER: count = elements each rank receives (sendbuf holds size*count).
//   ALLTOALL: count = elements to and from each rank (both buffers hold size*count).
//   BARRIER: nothing. BROADCAST: the buffer is recvbuf (sendbuf is ignored).
//   ALLREDUCE_BUCKETED: bufs[0..nbufs) with counts[0..nbufs), reduced in place.
// In place: sendbuf == recvbuf. For ALLGATHER and GATHER (root) the contribution is then
// already in recvbuf at rank*count; sendbuf == recvbuf + rank*count is also accepted. For
// REDUCE_SCATTER in place, recvbuf holds size*count inputs and the result goes to its first
// count elements. For SCATTER, a root's recvbuf == sendbuf (or sendbuf + root*count) leaves
// its block where it is.
#pragma once

#include <cstddef>

#include "collectives/coll_context.h"
#include "core/status.h"
#include "nexar/nexar.h"

namespace nexar::coll {

enum class CollKind {
  ALLREDUCE,
  BROADCAST,
  REDUCE,
  ALLGATHER,
  REDUCE_SCATTER,
  GATHER,
  SCATTER,
  ALLTOALL,
  SCAN,
  EXSCAN,
  BARRIER,
  ALLREDUCE_BUCKETED,
};
constexpr int kCollKindCount = 12;

// "allreduce", "reduce_scatter", ... (the names NEXAR_ALGO uses).
const char* coll_kind_name(CollKind kind);

struct CollArgs {
  CollKind kind = CollKind::BARRIER;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  size_t count = 0;
  nexar_dtype_t dtype = NEXAR_UINT8;
  nexar_op_t op = NEXAR_SUM;
  int root = 0;
  void* const* bufs = nullptr;  // ALLREDUCE_BUCKETED
  const size_t* counts = nullptr;
  size_t nbufs = 0;
};

// Local checks only (dtype, op, root in [0, size), NULL buffers with a non-zero count,
// byte sizes that overflow size_t). NEXAR_ERR_INVALID_ARGUMENT names the argument and
// its value. Arguments a collective ignores (op of a broadcast, root of an allreduce,
// recvbuf of a non-root gather) are not checked.
Status validate_collective_args(const CollArgs& args, int rank, int size);

// Picks the algorithm (NEXAR_ALGO, else the cost model), logs the choice, and runs it.
// Arguments must have passed validate_collective_args.
Status run_collective(CollContext& ctx, const CollArgs& args);

}  // namespace nexar::coll
