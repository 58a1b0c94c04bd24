// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Gather by binomial tree: each rank collects its subtree's blocks (in virtual-rank
// order, in a scratch buffer only when it has children) and passes them up; ceil(log2 p)
// rounds. Transfers into the root are cut where its real-rank order wraps around.
#include "collectives/algorithms.h"
#include "collectives/binomial.h"
#include "core/dtype.h"

namespace nexar::coll {
namespace {
constexpr int kTag = 131;
}

Status gather_binomial(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), root = a.root;
  const size_t es = dtype_size(a.dtype), bb = a.count * es;
  const int v = vrank(ctx.rank(), root, p);
  const int nsub = subtree_end(v, p) - v;
  auto bpos = [bb](int blocks) { return static_cast<size_t>(blocks) * bb; };
  unsigned char* out = static_cast<unsigned char*>(a.recvbuf);
  TempBuf tmp;
  const unsigned char* data = static_cast<const unsigned char*>(a.sendbuf);  // this subtree, virtual order
  if (v == 0) {
    const unsigned char* own = a.sendbuf == a.recvbuf ? out + bpos(root) : data;
    copy_elems(out + bpos(root), own, a.count, es);
  } else if (nsub > 1) {
    NX_RETURN_IF_ERROR(tmp.alloc(bpos(nsub), "binomial gather subtree"));
    copy_elems(tmp.data(), a.sendbuf, a.count, es);
    data = tmp.data();
  }
  for (int m = 1; m < p; m <<= 1) {
    if (v & m) {
      const int parent = v - m;
      if (parent != 0) return ctx.send(real_rank(parent, root, p), kTag, data, bpos(nsub));
      return for_each_real_run(v, v + nsub, root, p, [&](int vb, int ve) {
        return ctx.send(root, kTag, data + bpos(vb - v), bpos(ve - vb));
      });
    }
    const int child = v + m;
    if (child >= p) continue;
    const int cend = subtree_end(child, p), src = real_rank(child, root, p);
    if (v != 0) {
      NX_RETURN_IF_ERROR(ctx.recv(src, kTag, tmp.data() + bpos(child - v), bpos(cend - child)));
      continue;
    }
    NX_RETURN_IF_ERROR(for_each_real_run(child, cend, root, p, [&](int vb, int ve) {
      return ctx.recv(src, kTag, out + bpos(real_rank(vb, root, p)), bpos(ve - vb));
    }));
  }
  return Status::Ok();
}

// n = size * count bytes gathered at the root.
double gather_binomial_cost(const CostModel& m, int p, double n) {
  return m.xfer(ceil_log2(p), n * (p - 1) / p);
}

}  // namespace nexar::coll
