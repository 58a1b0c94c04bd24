// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The context ids in use in this process. A new communicator's ids are derived from its
// parent's by hashing (no communication needed); this registry catches the rare collision
// with a live communicator so that the ranks can agree to pick again (comm_split.cc).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_set>

namespace nexar::comm {

class ContextRegistry {
 public:
  // Reserves base and base + 1; false if either is taken.
  bool reserve(uint32_t base);
  void release(uint32_t base);

 private:
  std::mutex mu_;
  std::unordered_set<uint32_t> used_;
};

}  // namespace nexar::comm
