// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/topology.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace nexar::topology {
namespace {

// Forward distance from a to b on the ring of n.
int forward(int n, int a, int b) { return ((b - a) % n + n) % n; }
int ring_distance(int n, int a, int b) { return std::min(forward(n, a, b), forward(n, b, a)); }
int ceil_div(int a, int b) { return (a + b - 1) / b; }
bool full_in(const Topology& t, int n) { return t.kind == Kind::kFull || (t.kind == Kind::kKRegular && t.k >= n - 1); }
bool antipode(const Topology& t, int n) { return t.k % 2 == 1 && n % 2 == 0; }

// Hops from a to b in the circulant graph along the ring only (steps of up to k/2).
int ring_hops(const Topology& t, int n, int a, int b) { return ceil_div(ring_distance(n, a, b), t.k / 2); }

int kregular_hop(const Topology& t, int n, int from, int to) {
  const int half = t.k / 2;
  // Through the antipode when that is shorter (the antipode's own route never comes back:
  // it is shorter there only the other way round).
  if (antipode(t, n)) {
    const int across = (from + n / 2) % n;
    if (1 + ring_hops(t, n, across, to) < ring_hops(t, n, from, to)) return across;
  }
  const int ahead = forward(n, from, to);
  if (ahead <= n - ahead) return (from + std::min(ahead, half)) % n;
  return ((from - std::min(n - ahead, half)) % n + n) % n;
}

int hypercube_hop(int from, int to) {
  const unsigned extra = static_cast<unsigned>(from) & ~static_cast<unsigned>(to);
  if (extra) return static_cast<int>(static_cast<unsigned>(from) & ~(1u << (31 - __builtin_clz(extra))));
  const unsigned missing = static_cast<unsigned>(to) & ~static_cast<unsigned>(from);
  return static_cast<int>(static_cast<unsigned>(from) | (1u << (31 - __builtin_clz(missing))));
}

}  // namespace

Status parse(const std::string& text, int n, Topology* out) {
  auto bad = [&](const std::string& why) {
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("NEXAR_TOPOLOGY=%s %s", text.c_str(), why.c_str()));
  };
  *out = Topology{};
  if (text == "full") return Status::Ok();
  if (text == "hypercube") {
    out->kind = Kind::kHypercube;
    return Status::Ok();
  }
  constexpr std::string_view kK = "kregular:";
  if (text.compare(0, kK.size(), kK) != 0)
    return bad("is not a topology (full, kregular:K or hypercube)");
  const char* begin = text.c_str() + kK.size();
  const char* end = text.c_str() + text.size();
  int k = 0;
  auto [ptr, ec] = std::from_chars(begin, end, k);
  if (ec != std::errc() || ptr != end || begin == end) return bad("does not give K as a whole number (kregular:4)");
  if (k < 2) return bad("has K below 2: some ranks could not reach the others");
  if (k < n - 1 && k % 2 == 1 && n % 2 == 1)
    return bad(strprintf("has an odd K in a world of %d ranks: no graph gives each of an odd number of ranks an "
                         "odd number of neighbours (use an even K)", n));
  out->kind = Kind::kKRegular;
  out->k = k;
  return Status::Ok();
}

std::string name(const Topology& t) {
  switch (t.kind) {
    case Kind::kFull: return "full";
    case Kind::kKRegular: return "kregular:" + std::to_string(t.k);
    case Kind::kHypercube: return "hypercube";
  }
  return "?";
}

bool adjacent(const Topology& t, int n, int a, int b) {
  if (a == b || full_in(t, n)) return a != b;
  if (t.kind == Kind::kHypercube) return __builtin_popcount(static_cast<unsigned>(a ^ b)) == 1;
  const int d = ring_distance(n, a, b);
  return d <= t.k / 2 || (antipode(t, n) && d == n / 2);
}

bool complete(const Topology& t, int n) {
  if (full_in(t, n)) return true;
  // A hypercube of more than 2 ranks has ranks two bits apart; a circulant kregular graph
  // gives every rank rank 0's degree.
  if (t.kind == Kind::kHypercube) return n <= 2;
  return neighbours(t, n, 0).size() + 1 >= static_cast<size_t>(n);
}

std::vector<int> neighbours(const Topology& t, int n, int r) {
  // Built from the graph's shape, in O(degree): a search over the graph (the relay
  // drain's) then costs O(n * degree), not O(n^2).
  std::vector<int> out;
  if (full_in(t, n)) {
    for (int p = 0; p < n; ++p)
      if (p != r) out.push_back(p);
    return out;
  }
  if (t.kind == Kind::kHypercube) {
    for (unsigned bit = 1; bit < static_cast<unsigned>(n); bit <<= 1)
      if (const int p = static_cast<int>(static_cast<unsigned>(r) ^ bit); p < n) out.push_back(p);
  } else {
    for (int d = 1; d <= t.k / 2; ++d) out.insert(out.end(), {(r + d) % n, ((r - d) % n + n) % n});
    if (antipode(t, n)) out.push_back((r + n / 2) % n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  std::erase(out, r);
  return out;
}

int hops(const Topology& t, int n, int from, int to) {
  if (from == to) return 0;
  if (adjacent(t, n, from, to)) return 1;
  // hypercube_hop flips one differing bit per step.
  if (t.kind == Kind::kHypercube) return __builtin_popcount(static_cast<unsigned>(from ^ to));
  // kregular_hop: across to the antipode once when that is shorter, else ring steps of K/2.
  const int along = ring_hops(t, n, from, to);
  if (!antipode(t, n)) return along;
  return std::min(along, 1 + ring_hops(t, n, (from + n / 2) % n, to));
}

int next_hop(const Topology& t, int n, int from, int to) {
  if (from == to || adjacent(t, n, from, to)) return to;
  return t.kind == Kind::kHypercube ? hypercube_hop(from, to) : kregular_hop(t, n, from, to);
}

}  // namespace nexar::topology
