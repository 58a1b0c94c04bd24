// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Which elements a rank contributes to a compressed allreduce (nexar_allreduce_compressed):
// how many for a ratio, and which ones for top-k (largest magnitudes) and random-k (the
// same draw on every rank, from the call's seed). Indices come out ascending.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nexar/nexar.h"

namespace nexar::coll::compress {

// ceil(ratio * count), at least 1 and at most count (0 for count 0); ratio in (0, 1].
size_t contributed(double ratio, size_t count);

// The k indices with the largest |v| (NaN counts as largest; ties go to the lower index),
// ascending. v holds count elements of a floating dtype; k <= count <= UINT32_MAX.
std::vector<uint32_t> top_k(const void* v, size_t count, nexar_dtype_t dtype, size_t k);

// k distinct indices of [0, count), uniformly drawn from seed (Floyd's sampling), ascending;
// every rank draws the same from the same (seed, count, k).
std::vector<uint32_t> random_k(uint64_t seed, size_t count, size_t k);

}  // namespace nexar::coll::compress
