// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One byte signalled among all ranks on a tag, in ceil(log2 p) rounds (plus two for a
// non-power of two folded in, the second way): when it returns, this rank has heard,
// directly or through others, from every rank, and every message carried the call's
// descriptor. Sends and receives pair up round by round, so they never wait in a cycle.
// The barriers and the agreement round are made of them.
#pragma once

#include "collectives/coll_context.h"

namespace nexar::coll {

// Round k: rank r signals r + 2^k and waits for r - 2^k (mod p).
Status signal_dissemination(CollContext& ctx, int tag);
// Round k: rank r and r ^ 2^k signal each other, over the largest power of two, the
// others folded in and out (pow2_fold.h): on a hypercube every partner is a neighbour.
Status signal_recursive_doubling(CollContext& ctx, int tag);

}  // namespace nexar::coll
