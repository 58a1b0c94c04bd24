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

// A communicator owns a block of context ids from its base: point to point (base),
// collectives (base + 1), remote procedure calls (base + 2), one spare. Bases are
// multiples of the block's size, so blocks never overlap.
inline constexpr uint32_t kContextsPerComm = 4;
inline constexpr uint32_t block_base(uint32_t id) { return id & ~(kContextsPerComm - 1); }

class ContextRegistry {
 public:
  // Reserves the block of base (block_base(base) == base); false if it is taken.
  bool reserve(uint32_t base);
  void release(uint32_t base);

 private:
  std::mutex mu_;
  std::unordered_set<uint32_t> used_;
};

}  // namespace nexar::comm
