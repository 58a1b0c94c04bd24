// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/peer_pattern.h"

#include <algorithm>

#include "collectives/binomial.h"
#include "collectives/pow2_fold.h"

namespace nexar::coll {
namespace {

// Accumulates rounds: each round's longest route, weighted by how often the round repeats.
class Rounds {
 public:
  explicit Rounds(const std::function<int(int, int)>& hops) : hops_(hops) {}
  void pair(int a, int b) {
    if (a != b) longest_ = std::max(longest_, hops_(a, b));
  }
  // Closes the round that pair() calls opened; a round without messages counts nothing.
  void end_round(double times = 1) {
    if (longest_ == 0) return;
    sum_ += times * longest_;
    rounds_ += times;
    longest_ = 0;
  }
  double stretch() const { return rounds_ > 0 ? sum_ / rounds_ : 1.0; }

 private:
  const std::function<int(int, int)>& hops_;
  int longest_ = 0;
  double sum_ = 0, rounds_ = 0;
};

void ring(int p, Rounds& r, double steps) {
  for (int a = 0; a < p; ++a) r.pair(a, (a + 1) % p);
  r.end_round(steps);
}

void binomial(int p, Rounds& r) {
  // Round m: virtual rank v (a multiple of 2m) and its child v + m.
  for (int m = 1; m < p; m <<= 1) {
    for (int v = 0; v + m < p; v += 2 * m) r.pair(real_rank(v, 0, p), real_rank(v + m, 0, p));
    r.end_round();
  }
}

void to_root(int p, Rounds& r) {
  for (int a = 1; a < p; ++a) r.pair(a, 0);
  r.end_round();
}

double stretch_of(PeerPattern k, int p, const std::function<int(int, int)>& hops) {
  Rounds r(hops);
  switch (k) {
    case PeerPattern::kNone: break;
    case PeerPattern::kRing: ring(p, r, 1); break;
    case PeerPattern::kXor:
      for (int d = 1; d < p; d <<= 1) {
        for (int a = 0; a < p; ++a)
          if ((a ^ d) < p) r.pair(a, a ^ d);
        r.end_round();
      }
      break;
    case PeerPattern::kXorFold: {
      const Fold f = make_fold(0, p);
      for (int i = 0; i < f.rem; ++i) r.pair(2 * i, 2 * i + 1);
      r.end_round(2);  // folded in, and handed back at the end
      for (int d = 1; d < f.p2; d <<= 1) {
        for (int nr = 0; nr < f.p2; ++nr) r.pair(f.real(nr), f.real(nr ^ d));
        r.end_round();
      }
      break;
    }
    case PeerPattern::kBinomial: binomial(p, r); break;
    case PeerPattern::kShift:
      for (int d = 1; d < p; d <<= 1) {
        for (int a = 0; a < p; ++a) r.pair(a, (a + d) % p);
        r.end_round();
      }
      break;
    case PeerPattern::kPairwise: {
      const int every = std::max(1, (p - 1 + 63) / 64);
      for (int k = 0; k < p; k += every) {
        for (int a = 0; a < p; ++a) r.pair(a, ((k - a) % p + p) % p);
        r.end_round();
      }
      break;
    }
    case PeerPattern::kRoot: to_root(p, r); break;
    case PeerPattern::kBinomialRing:
      binomial(p, r);
      ring(p, r, p - 1);
      break;
    case PeerPattern::kRingRoot:
      ring(p, r, p - 1);
      to_root(p, r);
      break;
  }
  return r.stretch();
}

}  // namespace

RouteStretch route_stretch(int p, const std::function<int(int, int)>& hops) {
  RouteStretch out;
  for (int k = 0; k < kPeerPatternCount; ++k) out.of[static_cast<size_t>(k)] = stretch_of(static_cast<PeerPattern>(k), p, hops);
  return out;
}

}  // namespace nexar::coll
