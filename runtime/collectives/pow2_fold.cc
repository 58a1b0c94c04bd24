// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/pow2_fold.h"

#include "collectives/cost_model.h"
#include "core/dtype.h"

namespace nexar::coll {

Fold make_fold(int rank, int size) {
  Fold f;
  f.p2 = floor_pow2(size);
  f.rem = size - f.p2;
  if (rank < 2 * f.rem)
    f.newrank = rank % 2 == 1 ? rank / 2 : -1;
  else
    f.newrank = rank - f.rem;
  return f;
}

Status fold_in(CollContext& ctx, const Fold& f, const void* src, void* work, void* tmp, size_t count,
               nexar_dtype_t dtype, nexar_op_t op, int tag, const void** vec) {
  const int r = ctx.rank();
  *vec = src;
  if (r >= 2 * f.rem) return Status::Ok();
  const size_t bytes = count * dtype_size(dtype);
  if (r % 2 == 0) return ctx.send(r + 1, tag, src, bytes);
  NX_RETURN_IF_ERROR(ctx.recv(r - 1, tag, tmp, bytes));
  reduce_ordered(work, src, tmp, /*theirs_is_lower=*/true, count, dtype, op);
  *vec = work;
  return Status::Ok();
}

Status fold_out(CollContext& ctx, const Fold& f, void* work, size_t bytes, int tag) {
  const int r = ctx.rank();
  if (r >= 2 * f.rem) return Status::Ok();
  if (r % 2 == 1) return ctx.send(r - 1, tag, work, bytes);
  return ctx.recv(r + 1, tag, work, bytes);
}

}  // namespace nexar::coll
