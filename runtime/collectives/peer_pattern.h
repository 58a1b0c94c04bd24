// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Which ranks an algorithm's messages pair up, round by round, and what that costs where
// not every pair holds a link (a sparse NEXAR_TOPOLOGY: a message to a non-neighbour is
// relayed, each hop a full store and forward). The cost model charges an algorithm's
// latency and bandwidth terms its pattern's stretch: the mean over its rounds of the
// longest route any message of that round takes. A pattern that follows the graph's edges
// has stretch 1 (a ring on kregular, recursive doubling on a hypercube of 2^k ranks).
#pragma once

#include <array>
#include <functional>

namespace nexar::coll {

enum class PeerPattern : unsigned char {
  kNone,          // no messages between ranks (shared-memory slots), or chosen per part
  kRing,          // r -> r + 1 (ring phases)
  kXor,           // r <-> r ^ 2^i, partners beyond p skipped (scan)
  kXorFold,       // as kXor over the largest power of two, the rest folded in and out (pow2_fold.h)
  kBinomial,      // a binomial tree from rank 0, which stands for every root (binomial.h's tree_vrank)
  kShift,         // r -> r + 2^i mod p (dissemination, Bruck)
  kPairwise,      // round k: r <-> (k - r) mod p, every pair once
  kRoot,          // the root <-> every rank at once (rank 0 stands for every root where every rank
                  // looks alike: kregular, a hypercube of 2^k ranks)
  kBinomialRing,  // a binomial scatter, then p - 1 ring steps
  kRingRoot,      // p - 1 ring steps, then every rank to the root
};
inline constexpr int kPeerPatternCount = 10;

// Per pattern, its stretch for one communicator; 1 everywhere when every pair is linked.
struct RouteStretch {
  std::array<double, kPeerPatternCount> of;
  RouteStretch() { of.fill(1.0); }
  double operator[](PeerPattern k) const { return of[static_cast<size_t>(k)]; }
  bool operator==(const RouteStretch& o) const { return of == o.of; }
};

// The stretch of every pattern among p ranks, given the links a message from rank a to
// rank b crosses (hops(a, a) is 0). A pure function of (p, hops): every rank that knows
// the graph computes the same. The pairwise pattern samples at most 64 of its p - 1
// rounds (evenly spaced), the others visit every pair: O(p log p + 64 p) calls of hops.
RouteStretch route_stretch(int p, const std::function<int(int, int)>& hops);

}  // namespace nexar::coll
