// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The algorithm a communicator last chose per collective kind, with everything the choice
// depended on: a program calls the same collective again and again, and choosing again
// costs a lock and a walk of the algorithm table (~0.1 us of a sub-microsecond call).
// One per communicator (Comm::choice_cache), used only by the thread running the
// communicator's collective (one at a time, in issue order), so it needs no lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "collectives/algo_table.h"
#include "collectives/coll_kind.h"

namespace nexar::coll {

struct Choice {
  const AlgoDesc* algo = nullptr;
  double cost_us = 0;
  bool forced = false;  // by NEXAR_ALGO
};

// One kind's last choice. The key holds all the choice reads that may change between two
// calls on one communicator: the parameters' generation (NEXAR_ALGO, the cost model), the
// ranks, the transport, the slots, and the call's count and dtype (why_not and the costs
// read nothing else of the arguments; the kinds whose size is in arrays are never
// remembered). The routes (CollContext::routes) are computed once per communicator, so the
// communicator's cache need not compare them on every call.
struct RememberedChoice {
  uint64_t generation = ~uint64_t{0};
  size_t count = 0;
  nexar_dtype_t dtype{};
  int p = 0;
  CollTransport transport{};
  SlotCaps caps;
  Choice choice;

  bool matches(uint64_t gen, const CollArgs& a, int np, CollTransport t, const SlotCaps& c) const {
    return generation == gen && count == a.count && dtype == a.dtype && p == np && transport == t &&
           caps.has_slots == c.has_slots && caps.inline_bytes == c.inline_bytes && caps.can_read_all == c.can_read_all &&
           caps.cores == c.cores;
  }
};

struct ChoiceCache {
  std::array<RememberedChoice, kCollKindCount> last;
  // On a communicator of one rank: per kind, the one_rank algorithm unless NEXAR_ALGO
  // forces another (or is malformed), as of the parameters' generation one_rank_generation
  // (select.h's one_rank_algo fills it).
  uint64_t one_rank_generation = ~uint64_t{0};
  std::array<const AlgoDesc*, kCollKindCount> one_rank{};
};

}  // namespace nexar::coll
