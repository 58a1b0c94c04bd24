// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Binomial trees over virtual ranks v = (rank - root) mod p (or rank XOR root: tree_vrank),
// root at v = 0. The subtree of v covers virtual ranks [v, min(v + subtree_mask(v), p));
// its children are v + m for m = subtree_mask(v)/2, ..., 2, 1 (those below p), child v + m
// covering [v+m, v+2m).
#pragma once

namespace nexar::coll {

inline int vrank(int rank, int root, int p) { return ((rank - root) % p + p) % p; }
inline int real_rank(int v, int root, int p) { return (v + root) % p; }

// The tree of a broadcast or reduce, which needs no order among the other ranks: for p a
// power of two its virtual ranks are rank XOR root, so a parent and its child differ in
// one bit whatever the root (a hypercube's edges; on a ring-like graph such as kregular
// the same distances as root 0's tree), and the cost model's root-0 tree stands for every
// root (peer_pattern.h). Other p, and scatter and gather, whose root buffer is in rank
// order (for_each_real_run), use (rank - root) mod p.
inline bool xor_tree(int p) { return (p & (p - 1)) == 0; }
inline int tree_vrank(int rank, int root, int p) { return xor_tree(p) ? rank ^ root : vrank(rank, root, p); }
inline int tree_real_rank(int v, int root, int p) { return xor_tree(p) ? v ^ root : real_rank(v, root, p); }

// Lowest set bit of v; for the root, the smallest power of two >= p.
inline int subtree_mask(int v, int p) {
  if (v != 0) return v & -v;
  int m = 1;
  while (m < p) m <<= 1;
  return m;
}
inline int subtree_end(int v, int p) {
  const long e = static_cast<long>(v) + subtree_mask(v, p);
  return e < p ? static_cast<int>(e) : p;
}

}  // namespace nexar::coll

namespace nexar::coll {

// Virtual ranks [vlo, vhi) map to real ranks that are consecutive except where real rank
// 0 falls (virtual p - root). Calls fn(vb, ve) for each run of consecutive real ranks, in
// virtual order. Used on both ends of a transfer to or from the root, whose buffer is in
// real-rank order, so both cut the transfer into the same messages.
template <typename Fn>
auto for_each_real_run(int vlo, int vhi, int root, int p, Fn fn) -> decltype(fn(0, 0)) {
  const int w = p - root;
  if (w > vlo && w < vhi) {
    auto st = fn(vlo, w);
    if (!st.ok()) return st;
    return fn(w, vhi);
  }
  return fn(vlo, vhi);
}

}  // namespace nexar::coll
