// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The two halves of a ring, shared by allreduce, reduce_scatter, allgather, reduce and
// broadcast. Ranks are taken in "virtual" order v = (rank - rot) mod p, block v of the
// layout belongs to virtual rank v, and data moves from v to v + 1.
#pragma once

#include "collectives/coll_context.h"
#include "collectives/coll_util.h"

namespace nexar::coll {

struct RingSpec {
  Blocks blocks;   // n must equal ctx.size()
  size_t esize;
  int rot = 0;     // real rank = (v + rot) mod p
  int tag;
};

// Reduce-scatter: `in` holds every block of this rank's contribution; on return `out`
// holds block v reduced over all ranks (AVG not yet divided). out may be in + off(v)
// (allreduce in place) or any buffer not overlapping the other blocks of in. Uses two
// temporaries of the largest block. p - 1 steps of one block each.
Status ring_reduce_scatter(CollContext& ctx, const RingSpec& spec, const void* in, void* out, nexar_dtype_t dtype,
                           nexar_op_t op);

// Allgather in place: buf holds block v on entry and every block on return.
Status ring_allgather(CollContext& ctx, const RingSpec& spec, void* buf);

}  // namespace nexar::coll
