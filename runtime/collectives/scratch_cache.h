// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The scratch blocks an algorithm used, kept by its thread for the next call (a BlockPool,
// core/block_pool.h, per thread): a 1 MiB ring allreduce at np 2 frees two 512 KiB blocks a
// call, and faulting them in again took 24 ms a call here. A thread keeps up to
// NEXAR_SCRATCH_KEEP bytes; the rest is freed as before.
#pragma once

#include <cstddef>

#include "core/block_pool.h"

namespace nexar::coll {

// A kept block of at least `bytes`, else a new one; empty when memory runs out.
Block scratch_take(size_t bytes);
void scratch_give(Block block);
// Bytes this thread keeps now (for tests).
size_t scratch_kept_bytes();

}  // namespace nexar::coll
