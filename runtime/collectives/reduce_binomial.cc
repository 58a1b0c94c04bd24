// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Reduce by binomial tree: each rank folds in its children's partial results (lower
// virtual ranks first) and passes the sum to its parent; ceil(log2 p) rounds of the whole
// vector. Best for small and medium messages.
#include "collectives/algorithms.h"
#include "collectives/binomial.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace nexar::coll {
namespace {
constexpr int kTag = 61;
}

Status reduce_binomial(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size();
  const size_t es = dtype_size(a.dtype), bytes = a.count * es;
  const int v = tree_vrank(ctx.rank(), a.root, p);
  const bool has_child = v + 1 < p && (v & 1) == 0;
  TempBuf acc_buf, tmp;
  // The running result: the root's recvbuf; a leaf sends its sendbuf untouched.
  const void* acc = a.sendbuf;
  void* acc_w = nullptr;
  if (v == 0) {
    acc_w = a.recvbuf;
  } else if (has_child) {
    NX_RETURN_IF_ERROR(acc_buf.alloc(bytes, "binomial reduce accumulator"));
    acc_w = acc_buf.data();
  }
  if (has_child) {
    NX_RETURN_IF_ERROR(tmp.alloc(bytes, "binomial reduce receive buffer"));
    copy_elems(acc_w, a.sendbuf, a.count, es);
    acc = acc_w;
  }
  for (int m = 1; m < p; m <<= 1) {
    if (v & m) return ctx.send(tree_real_rank(v - m, a.root, p), kTag, acc, bytes);
    if (v + m >= p) continue;
    NX_RETURN_IF_ERROR(ctx.recv(tree_real_rank(v + m, a.root, p), kTag, tmp.data(), bytes));
    reduce(acc_w, acc_w, tmp.data(), a.count, a.dtype, a.op);  // children hold higher virtual ranks
  }
  // Only the root gets here.
  if (!has_child) copy_elems(a.recvbuf, a.sendbuf, a.count, es);  // p == 1
  reduce_finalize(a.recvbuf, a.count, a.dtype, a.op, static_cast<size_t>(p));
  return Status::Ok();
}

double reduce_binomial_cost(const CostModel& m, int p, double n) {
  const int k = ceil_log2(p);
  return m.xfer(k, k * n) + m.reduce(k * n);
}

}  // namespace nexar::coll
