// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Test harness: two "ranks" in one process, each with its own engine and shared-memory
// hub, joined by real shared memory (inboxes in /dev/shm, rings, CMA on our own pid).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "p2p/engine.h"
#include "transport/shm/shm_hub.h"

namespace nexar::shm::test {

struct PairOptions {
  size_t ring_bytes = 64u << 10;
  size_t eager_limit = 4096;
  bool cma = true;
  size_t unexpected_limit = 256u << 20;
};

class ShmPair {
 public:
  explicit ShmPair(const PairOptions& opt = {});
  ~ShmPair();
  p2p::Engine& engine(int r) { return *engines_[static_cast<size_t>(r)]; }
  ShmHub& hub(int r) { return *hubs_[static_cast<size_t>(r)]; }
  Status status() const { return status_; }
  const std::string& inbox_name(int r) const { return names_[static_cast<size_t>(r)]; }
  static constexpr uint32_t kCtx = 7;

  // Blocking helpers (bounded by 20 s).
  Status send(int from, int tag, const void* buf, size_t n);
  Status recv(int to, int src, int tag, void* buf, size_t cap, size_t* got = nullptr);

 private:
  std::vector<std::unique_ptr<p2p::Engine>> engines_;
  std::vector<std::unique_ptr<ShmHub>> hubs_;
  Status status_;
  std::vector<std::string> names_;
};

p2p::Clock::time_point in_seconds(double s);

}  // namespace nexar::shm::test
