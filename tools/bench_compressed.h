// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar-bench -c compressed: nexar_allreduce_compressed (top-k and random-k at ratios
// 0.01, 0.1 and 1) beside nexar_allreduce of the same float32 buffer, per size: the
// payload bytes each rank sends and the median time (tools/bench_method.h's method).
#pragma once

#include <cstddef>
#include <vector>

#include "nexar/nexar.h"

namespace nexar_bench {

// Prints the table on rank 0; every rank runs the same calls. Exits non-zero on failure.
void bench_compressed(nexar_comm_t world, int rank, int nranks, const std::vector<size_t>& sizes, double target_s,
                      long iters, long warmup);

}  // namespace nexar_bench
