// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/parallel_groups.hpp: the tensor, pipeline and data parallel groups of 3-D parallel training.
#pragma once

#include <string>

#include "nexar/communicator.hpp"
#include "nexar/error.hpp"
#include "nexar/nexar.h"

namespace nexar {

// The groups of 3-D parallel training with numr's CommunicatorGroup layout: world ranks in
// [DP, PP, TP] order, tensor parallel innermost. For world rank r:
//   tp_rank = r % tp, pp_rank = (r / tp) % pp, dp_rank = r / (tp * pp).
struct ParallelGroups {
  Communicator tp, pp, dp;
  int tp_rank = 0, pp_rank = 0, dp_rank = 0;
};

// Collective over world. Throws Error(NEXAR_ERR_INVALID_ARGUMENT) unless dp * pp * tp equals
// the world size (every size >= 1).
inline ParallelGroups make_parallel_groups(Communicator& world, int dp, int pp, int tp) {
  const int n = world.size(), r = world.rank();
  if (dp < 1 || pp < 1 || tp < 1 || static_cast<long>(dp) * pp * tp != n)
    throw Error(NEXAR_ERR_INVALID_ARGUMENT, "make_parallel_groups: dp " + std::to_string(dp) + " x pp " +
                                                std::to_string(pp) + " x tp " + std::to_string(tp) +
                                                " does not equal the world size " + std::to_string(n));
  ParallelGroups g;
  g.tp_rank = r % tp;
  g.pp_rank = (r / tp) % pp;
  g.dp_rank = r / (tp * pp);
  g.tp = *world.split(r / tp, r);                      // same (dp, pp)
  g.pp = *world.split(g.dp_rank * tp + g.tp_rank, r);  // same (dp, tp)
  g.dp = *world.split(g.pp_rank * tp + g.tp_rank, r);  // same (pp, tp)
  return g;
}

}  // namespace nexar
