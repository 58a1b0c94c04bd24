// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The last step before a world with a sparse NEXAR_TOPOLOGY says goodbye. A rank relays
// other ranks' messages (p2p/engine_relay.cc), so it must not close while a message it
// would forward is still on its way: after the closing barrier some of that barrier's own
// messages may be. Every rank floods a token to its direct peers for `rounds` rounds (at
// least the graph's diameter): when that ends, every rank has left the barrier, so every
// relayed message anyone waits for has arrived; what remains is direct traffic, which
// the links' goodbye covers.
#pragma once

#include <vector>

#include "core/topology.h"
#include "p2p/engine.h"

namespace nexar::bootstrap {

// The context of the flood: in the block reserved with p2p::kControlContext.
inline constexpr uint32_t kDrainContext = 0xFFFFFFFCu;

// Rounds that reach every rank of the graph from every other: twice the eccentricity of
// rank 0 (an upper bound on the diameter), the same on every rank.
int drain_rounds(const topology::Topology& t, int n);

// Floods over direct (world ranks this one holds a link to, not lost). A peer lost
// meanwhile, or the deadline, ends it with that status.
Status drain_relays(p2p::Engine& engine, const std::vector<int>& direct, int rounds, p2p::Clock::time_point deadline);

}  // namespace nexar::bootstrap
