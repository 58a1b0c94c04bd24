// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Test harness: two communicators of two ranks in one process, on two engines joined by
// real shared memory (ShmPair). Their hosts differ, so they have no shared-memory slots:
// their collectives move as messages.
#pragma once

#include <catch.hpp>

#include <memory>
#include <vector>

#include "comm/comm.h"
#include "shm/shm_pair.h"

namespace nexar::comm::test {

struct TwoComms {
  static constexpr uint32_t kBase = 40;
  shm::test::ShmPair pair{shm::test::PairOptions{64u << 10, 4096, false, 256u << 20}};
  std::unique_ptr<Comm> comm[2];
  TwoComms() {
    REQUIRE(pair.status().ok());
    for (int r = 0; r < 2; ++r) {
      auto w = std::make_shared<WorldInfo>();
      w->engine = &pair.engine(r);
      w->host_ids = {"host-a", "host-b"};  // no shared-memory slots: transfers only
      REQUIRE(w->contexts.reserve(kBase));
      comm[r] = std::make_unique<Comm>(w, kBase, std::vector<int>{0, 1}, r, 20.0);
    }
  }
};

}  // namespace nexar::comm::test
