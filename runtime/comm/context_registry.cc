// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/context_registry.h"

namespace nexar::comm {

bool ContextRegistry::reserve(uint32_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  if (used_.count(base) || used_.count(base + 1)) return false;
  used_.insert(base);
  used_.insert(base + 1);
  return true;
}

void ContextRegistry::release(uint32_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  used_.erase(base);
  used_.erase(base + 1);
}

}  // namespace nexar::comm
