// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TOPOLOGY's graphs: parsing with named errors; for every world size up to 70 and
// every pair of ranks, adjacency is symmetric, degrees are what the topology promises,
// and following next_hop reaches the destination through adjacent ranks within the
// graph's bound (hypercube: the differing bits; kregular: the ring distance over K/2) in
// exactly hops() steps.
#include <catch.hpp>

#include <algorithm>

#include "core/topology.h"

using namespace nexar::topology;

namespace {

Topology parsed(const std::string& text, int n) {
  Topology t;
  nexar::Status st = parse(text, n, &t);
  INFO(text << " n=" << n << ": " << st.to_string());
  REQUIRE(st.ok());
  return t;
}

// Follows next_hop from a to b: the hop count, or -1 when a step is not to a neighbour or
// the route grows past max_hops. (Plain checks: Catch's per-assertion cost over the
// 100,000-odd hops made the test take seconds.)
int route(const Topology& t, int n, int a, int b, int max_hops) {
  int at = a, steps = 0;
  while (at != b) {
    const int next = next_hop(t, n, at, b);
    if (!adjacent(t, n, at, next) || ++steps > max_hops) return -1;
    at = next;
  }
  return steps;
}

void check_route(const Topology& t, int n, int a, int b, int max_hops) {
  if (route(t, n, a, b, max_hops) >= 0) return;
  FAIL_CHECK(name(t) << " n=" << n << ": no route " << a << " -> " << b << " within " << max_hops << " hops");
}

}  // namespace

TEST_CASE("topology: values parse, and bad ones are named") {
  CHECK(parsed("full", 8).kind == Kind::kFull);
  CHECK(parsed("hypercube", 8).kind == Kind::kHypercube);
  const Topology k4 = parsed("kregular:4", 8);
  CHECK(k4.kind == Kind::kKRegular);
  CHECK(k4.k == 4);
  CHECK(name(k4) == "kregular:4");
  CHECK(parsed("kregular:3", 8).k == 3);   // odd K, even world
  CHECK(parsed("kregular:7", 7).k == 7);   // as many as there are peers: full
  Topology t;
  for (const char* bad : {"ring", "", "kregular", "kregular:", "kregular:x", "kregular:4x", "kregular:-4", "kregular:1",
                          "kregular:0", "Full", "hypercube:2"}) {
    INFO(bad);
    nexar::Status st = parse(bad, 8, &t);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(st.message().find(std::string("NEXAR_TOPOLOGY=") + bad + " ") == 0);
  }
  nexar::Status odd = parse("kregular:3", 9, &t);
  CHECK(odd.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(odd.message().find("odd K in a world of 9 ranks") != std::string::npos);
}

TEST_CASE("topology: symmetric, the promised degrees, every pair routed within the bound") {
  for (int n = 1; n <= 70; ++n) {
    std::vector<std::string> kinds = {"full", "hypercube", "kregular:2", "kregular:4", "kregular:6"};
    if (n % 2 == 0) kinds.push_back("kregular:3");
    for (const std::string& text : kinds) {
      const Topology t = parsed(text, n);
      int log2n = 0;
      while ((1 << log2n) < n) ++log2n;
      for (int a = 0; a < n; ++a) {
        const std::vector<int> nb = neighbours(t, n, a);
        const size_t want = t.kind == Kind::kFull || (t.kind == Kind::kKRegular && t.k >= n - 1) ? size_t(n - 1)
                            : t.kind == Kind::kKRegular                                       ? size_t(t.k)
                                                                                              : size_t(log2n);
        if (t.kind == Kind::kHypercube ? nb.size() > want : nb.size() != want)
          FAIL_CHECK(text << " n=" << n << ": rank " << a << " has " << nb.size() << " neighbours");
        std::vector<int> scanned;  // neighbours() is built from the shape: it must list exactly these
        for (int b = 0; b < n; ++b)
          if (adjacent(t, n, a, b)) scanned.push_back(b);
        if (nb != scanned) FAIL_CHECK(text << " n=" << n << ": rank " << a << "'s neighbours differ from adjacent()");
        for (int b = 0; b < n; ++b) {
          if (adjacent(t, n, a, b) != adjacent(t, n, b, a)) FAIL_CHECK(text << " n=" << n << ": " << a << ", " << b);
          // hops() is the length of the route next_hop takes.
          if (const int walked = route(t, n, a, b, n); walked != hops(t, n, a, b))
            FAIL_CHECK(text << " n=" << n << ": hops(" << a << ", " << b << ") is " << hops(t, n, a, b)
                            << ", the route takes " << walked);
          if (t.kind == Kind::kHypercube) {
            check_route(t, n, a, b, __builtin_popcount(unsigned(a ^ b)));
          } else if (t.kind == Kind::kKRegular) {
            const int d = std::min(((b - a) % n + n) % n, ((a - b) % n + n) % n);
            check_route(t, n, a, b, (d + t.k / 2 - 1) / (t.k / 2));
          } else {
            check_route(t, n, a, b, a != b);
          }
        }
      }
    }
  }
}

TEST_CASE("topology: an odd K crosses the ring through the antipode") {
  const Topology t = parsed("kregular:3", 64);
  CHECK(adjacent(t, 64, 0, 32));
  CHECK(route(t, 64, 0, 31, 64) <= 2);  // across, then one step back
  CHECK(route(t, 64, 0, 16, 64) <= 16);
}

// complete() is what decides whether a world relays at all (init refuses a sparse topology
// over TCP; destroy drains relays): it must agree with adjacent() for every pair.
TEST_CASE("topology: complete exactly when every pair is adjacent") {
  for (const char* text : {"full", "kregular:2", "kregular:3", "kregular:4", "hypercube"}) {
    for (int n = 1; n <= 20; ++n) {
      Topology t;
      if (!parse(text, n, &t).ok()) continue;  // an odd K in an odd world
      bool every_pair = true;
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) every_pair = every_pair && (a == b || adjacent(t, n, a, b));
      INFO(text << " at n " << n);
      CHECK(complete(t, n) == every_pair);
    }
  }
  CHECK_FALSE(complete(parsed("hypercube", 3), 3));  // rank 0 reaches both, 1 and 2 do not meet
}
