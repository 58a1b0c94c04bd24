// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/block_pool.h"

#include <algorithm>
#include <new>

namespace nexar {

Block BlockPool::take(size_t bytes) {
  auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block& b) { return b.bytes >= bytes; });
  if (it != blocks_.end()) {
    Block b = std::move(*it);
    blocks_.erase(it);
    total_ -= b.bytes;
    return b;
  }
  Block b;
  b.data.reset(new (std::nothrow) unsigned char[bytes]);
  if (b.data) b.bytes = bytes;
  return b;
}

void BlockPool::give(Block block, size_t limit) {
  if (!block.data || block.bytes > limit || max_blocks_ == 0) return;
  while (!blocks_.empty() && (blocks_.size() >= max_blocks_ || total_ + block.bytes > limit)) {
    if (blocks_.front().bytes > block.bytes) return;  // the kept ones are all larger: free this
    total_ -= blocks_.front().bytes;
    blocks_.erase(blocks_.begin());
  }
  total_ += block.bytes;
  auto at = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block& b) { return b.bytes > block.bytes; });
  blocks_.insert(at, std::move(block));
}

}  // namespace nexar
