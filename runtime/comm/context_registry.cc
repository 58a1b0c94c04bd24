// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/context_registry.h"

namespace nexar::comm {

bool ContextRegistry::reserve(uint32_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  if (used_.count(base)) return false;
  used_.insert(base);
  return true;
}

void ContextRegistry::release(uint32_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  used_.erase(base);
}

}  // namespace nexar::comm
