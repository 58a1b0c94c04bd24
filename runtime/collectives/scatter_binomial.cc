// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Scatter by binomial tree, the mirror of gather_binomial.cc: the root hands each child
// its whole subtree's blocks, which pass them on; ceil(log2 p) rounds. Transfers out of
// the root are cut where its real-rank order wraps around.
#include "collectives/algorithms.h"
#include "collectives/binomial.h"
#include "core/dtype.h"

namespace nexar::coll {
namespace {
constexpr int kTag = 141;
}

Status scatter_binomial(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), root = a.root;
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const int v = vrank(ctx.rank(), root, p);
  const int mask = subtree_mask(v, p), nsub = subtree_end(v, p) - v;
  auto bpos = [bb](int blocks) { return static_cast<size_t>(blocks) * bb; };
  const unsigned char* in = static_cast<const unsigned char*>(a.sendbuf);
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  TempBuf tmp;
  unsigned char* sub = out;  // this subtree's blocks, virtual order (non-root)
  if (v == 0) {
    if (a.recvbuf != a.sendbuf) copy_elems(out, in + bpos(root), a.count, es);
  } else {
    if (nsub > 1) {
      NX_RETURN_IF_ERROR(tmp.alloc(bpos(nsub), "binomial scatter subtree"));
      sub = tmp.data();
    }
    const int parent = v - mask;
    if (parent != 0) {
      NX_RETURN_IF_ERROR(ctx.recv(real_rank(parent, root, p), kTag, sub, bpos(nsub)));
    } else {
      NX_RETURN_IF_ERROR(for_each_real_run(v, v + nsub, root, p, [&](int vb, int ve) {
        return ctx.recv(root, kTag, sub + bpos(vb - v), bpos(ve - vb));
      }));
    }
    if (nsub > 1) copy_elems(out, sub, a.count, es);
  }
  for (int m = mask / 2; m >= 1; m /= 2) {
    const int child = v + m;
    if (child >= p) continue;
    const int cend = subtree_end(child, p), dst = real_rank(child, root, p);
    if (v != 0) {
      NX_RETURN_IF_ERROR(ctx.send(dst, kTag, sub + bpos(child - v), bpos(cend - child)));
      continue;
    }
    NX_RETURN_IF_ERROR(for_each_real_run(child, cend, root, p, [&](int vb, int ve) {
      return ctx.send(dst, kTag, in + bpos(real_rank(vb, root, p)), bpos(ve - vb));
    }));
  }
  return Status::Ok();
}

// n = size * count bytes scattered from the root.
double scatter_binomial_cost(const CostModel& m, int p, double n) {
  return m.xfer(ceil_log2(p), n * (p - 1) / p);
}

}  // namespace nexar::coll
