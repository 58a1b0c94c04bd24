// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TOPOLOGY's graphs: which ranks of a world of n hold a direct connection, and the
// next hop of a route between two that hold none. Pure functions of (topology, n): every
// rank computes the same graph and the same routes without asking anyone.
//   full         every pair is adjacent
//   kregular:K   a circulant graph: rank r is adjacent to r +- 1 .. r +- K/2 (mod n), and
//                for odd K (n even) to r + n/2; K >= n - 1 is full
//   hypercube    r is adjacent to r XOR 2^i for every i with r XOR 2^i < n (n need not be
//                a power of two)
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::topology {

enum class Kind { kFull, kKRegular, kHypercube };

struct Topology {
  Kind kind = Kind::kFull;
  int k = 0;  // kKRegular: neighbours per rank
};

// Parses NEXAR_TOPOLOGY's value for a world of n ranks. An unknown name, a K that is not a
// whole number, K < 2, or an odd K in a world of odd size (no such graph exists) is
// NEXAR_ERR_INVALID_ARGUMENT naming the value.
Status parse(const std::string& text, int n, Topology* out);
// The value as NEXAR_TOPOLOGY spells it ("full", "kregular:4", "hypercube").
std::string name(const Topology& t);

bool adjacent(const Topology& t, int n, int a, int b);
// Every rank is adjacent to every other in a world of n: nothing is relayed.
bool complete(const Topology& t, int n);
// The ranks adjacent to r, ascending.
std::vector<int> neighbours(const Topology& t, int n, int r);
// The neighbour of from that a message to `to` goes through next (to itself when
// adjacent). Routes are loop-free: the hop count to `to` shrinks at every step (a ring
// distance for kregular, the differing bits for hypercube: cleared first, then set, so
// every rank on the way is below n).
int next_hop(const Topology& t, int n, int from, int to);
// How many links a message from `from` to `to` crosses on next_hop's route (0 to itself,
// 1 to a neighbour), in O(1): the collectives' cost model asks it for every pair an
// algorithm's rounds pair up (collectives/peer_pattern.h).
int hops(const Topology& t, int n, int from, int to);

}  // namespace nexar::topology
