// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/scratch_cache.h"

#include <algorithm>
#include <vector>

#include "core/params.h"

namespace nexar::coll {
namespace {

// An algorithm holds at most a few blocks at once (ring reduce-scatter: two).
constexpr size_t kMaxBlocks = 4;

struct Kept {
  std::vector<ScratchBlock> blocks;  // at most kMaxBlocks
  size_t total = 0;
};

Kept& kept() {
  thread_local Kept k;
  return k;
}

}  // namespace

ScratchBlock scratch_take(size_t bytes) {
  Kept& k = kept();
  auto best = k.blocks.end();
  for (auto it = k.blocks.begin(); it != k.blocks.end(); ++it)
    if (it->bytes >= bytes && (best == k.blocks.end() || it->bytes < best->bytes)) best = it;
  if (best == k.blocks.end()) return {};
  ScratchBlock b = std::move(*best);
  k.blocks.erase(best);
  k.total -= b.bytes;
  return b;
}

void scratch_give(ScratchBlock block) {
  const int64_t limit = param::NEXAR_SCRATCH_KEEP.get();
  if (!block.data || limit <= 0 || block.bytes > static_cast<size_t>(limit)) return;
  Kept& k = kept();
  // Make room by dropping the smallest kept blocks: the larger block serves them too.
  std::sort(k.blocks.begin(), k.blocks.end(), [](const ScratchBlock& a, const ScratchBlock& b) { return a.bytes < b.bytes; });
  while (!k.blocks.empty() && (k.blocks.size() >= kMaxBlocks || k.total + block.bytes > static_cast<size_t>(limit))) {
    if (k.blocks.front().bytes > block.bytes) return;  // keep the larger ones; free this
    k.total -= k.blocks.front().bytes;
    k.blocks.erase(k.blocks.begin());
  }
  k.total += block.bytes;
  k.blocks.push_back(std::move(block));
}

size_t scratch_kept_bytes() { return kept().total; }

}  // namespace nexar::coll
