// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What uid_probe's "coll" scenario must print on each rank of a world of `size`, worked out
// here from the inputs every rank gives (uid_probe.cc, collectives()). Include after
// <catch.hpp>.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "integration/pattern.h"
#include "launcher/nexrun_process.h"

namespace uid_test {

inline void expect_coll_results(const std::string& out, int size) {
  INFO("stdout:\n" << out);
  // Rank r gives i * (r + 1): the sum is i * size * (size + 1) / 2.
  std::vector<int64_t> sum(1000);
  for (size_t i = 0; i < sum.size(); ++i) sum[i] = static_cast<int64_t>(i) * size * (size + 1) / 2;
  const uint64_t sum_fnv = probe::fnv1a(reinterpret_cast<const unsigned char*>(sum.data()), sum.size() * sizeof(int64_t));
  const uint64_t bcast_fnv = probe::pattern_fnv1a(size - 1, 1, 1 << 20);  // the last rank's 1 MiB
  std::string gathered;
  for (int r = 0; r < size; ++r) gathered += (r ? "," : "") + std::to_string(100 + r);
  for (int rank = 0; rank < size; ++rank) {
    const int prev = (rank + size - 1) % size;
    const uint64_t ring = size > 1 ? probe::pattern_fnv1a(prev, 2, 65536) : 0;
    char line[300];
    std::snprintf(line, sizeof line,
                  "rank %d: coll sum fnv %016llx max %.1f broadcast fnv %016llx allgather %s ring fnv %016llx\n", rank,
                  static_cast<unsigned long long>(sum_fnv), size - 0.5, static_cast<unsigned long long>(bcast_fnv),
                  gathered.c_str(), static_cast<unsigned long long>(ring));
    CHECK(launcher_test::count_of(out, line) == 1);
  }
}

}  // namespace uid_test
