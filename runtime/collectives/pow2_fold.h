// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Folding a non-power-of-two group into the largest power of two p2 <= p (as MPICH does):
// with rem = p - p2, each even rank below 2*rem hands its vector to the odd rank above it
// and sits out; the p2 remaining ranks are renumbered 0..p2-1; at the end the odd ranks
// hand the result back.
#pragma once

#include "collectives/coll_context.h"
#include "collectives/coll_util.h"

namespace nexar::coll {

struct Fold {
  int p2;       // the power of two that takes part
  int rem;      // p - p2
  int newrank;  // this rank's number among the p2, or -1 while it sits out
  // The real rank of participant nr.
  int real(int nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }
};

Fold make_fold(int rank, int size);

// src holds this rank's vector (it may be work itself). After it, *vec points at what a
// participant goes on with: in work, its own vector combined with its folded partner's
// (lower rank first), or src itself when it has no partner -- the vector is not copied
// into work first (at np 2 that copy was a whole vector's memcpy per call). tmp: count
// elements, needed only by participants below 2*rem.
Status fold_in(CollContext& ctx, const Fold& f, const void* src, void* work, void* tmp, size_t count,
               nexar_dtype_t dtype, nexar_op_t op, int tag, const void** vec);
// Sends the finished vector back to the ranks that sat out.
Status fold_out(CollContext& ctx, const Fold& f, void* work, size_t bytes, int tag);
// Whether this rank needs the count-element tmp for fold_in.
inline bool fold_needs_tmp(const Fold& f, int rank) { return rank < 2 * f.rem && (rank % 2) == 1; }

}  // namespace nexar::coll
