// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/scratch_cache.h"

#include "core/params.h"

namespace nexar::coll {
namespace {

BlockPool& pool() {
  thread_local BlockPool p(4);  // an algorithm holds at most a few blocks at once
  return p;
}

}  // namespace

Block scratch_take(size_t bytes) { return pool().take(bytes); }

void scratch_give(Block block) {
  const int64_t limit = param::NEXAR_SCRATCH_KEEP.get();
  pool().give(std::move(block), limit > 0 ? static_cast<size_t>(limit) : 0);
}

size_t scratch_kept_bytes() { return pool().kept_bytes(); }

}  // namespace nexar::coll
