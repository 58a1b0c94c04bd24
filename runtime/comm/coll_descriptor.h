// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A collective's descriptor: what every rank must agree on (kind, count, dtype, op, root),
// packed into the 64 bits every collective message carries, so a rank that receives data
// of a different collective says exactly what differed instead of hanging.
//   bits 63..59 kind, 58..55 dtype, 54..52 op, 51..32 root + 1 (0: none), 31..0 count (low bits)
// Arguments a kind ignores (a broadcast's op, an allreduce's root: coll::kind_traits) are left out; the kinds
// with a count per rank carry count 0 (their counts are checked pair by pair); a barrier
// carries count 1 when it is nexar_comm_destroy's closing barrier (CollArgs::closing).
#pragma once

#include <cstdint>
#include <string>

#include "collectives/collective.h"

namespace nexar::comm {

uint64_t pack_descriptor(const coll::CollArgs& args);
// "world rank 2 called broadcast(count 8, float32, root 1) where world rank 0 called
//  allreduce(count 8, float32, sum)"
std::string describe_mismatch(uint64_t mine, uint64_t theirs, int their_world_rank, int my_world_rank);

}  // namespace nexar::comm
