// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The scratch blocks an algorithm used, kept by its thread for the next call. Freed memory
// of a few hundred KiB goes back to the kernel (glibc trims the heap or unmaps the block),
// and the next call faults every page in again: on this project's VMs a fault costs
// 10-30 us, so a 1 MiB ring allreduce at np 2 spent 24 ms a call faulting its two 512 KiB
// blocks. A thread keeps up to NEXAR_SCRATCH_KEEP bytes; the rest is freed as before.
#pragma once

#include <cstddef>
#include <memory>

namespace nexar::coll {

struct ScratchBlock {
  std::unique_ptr<unsigned char[]> data;
  size_t bytes = 0;
};

// The smallest kept block of at least `bytes`, or an empty one (the caller allocates).
ScratchBlock scratch_take(size_t bytes);
// Keeps the block for a later scratch_take while the thread's total stays within
// NEXAR_SCRATCH_KEEP (dropping smaller kept blocks for a larger one), else frees it.
void scratch_give(ScratchBlock block);
// Bytes this thread keeps now (for tests).
size_t scratch_kept_bytes();

}  // namespace nexar::coll
