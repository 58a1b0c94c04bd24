// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Freed buffers kept for the next use of the same size. Memory freed to glibc goes back to
// the kernel (the heap is trimmed, a large block unmapped) and the next use faults every
// page in again: on this project's VMs a page fault costs 10-30 us, so a path that frees
// and allocates hundreds of KiB per call spends milliseconds faulting. Not thread-safe:
// each pool has one owner (a thread, or a structure under its lock).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace nexar {

struct Block {
  std::unique_ptr<unsigned char[]> data;
  size_t bytes = 0;
};

class BlockPool {
 public:
  explicit BlockPool(size_t max_blocks) : max_blocks_(max_blocks) {}
  // The smallest kept block of at least `bytes`, else a new one; empty when memory runs out.
  Block take(size_t bytes);
  // Keeps the block while the pool holds at most `limit` bytes in at most max_blocks blocks
  // (a larger block pushes smaller kept ones out), else frees it.
  void give(Block block, size_t limit);
  size_t kept_bytes() const { return total_; }

 private:
  size_t max_blocks_;
  std::vector<Block> blocks_;  // sorted by size, smallest first
  size_t total_ = 0;
};

}  // namespace nexar
