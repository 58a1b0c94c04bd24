// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What p2p_probe's scenarios must print, checked by the tests that run it over each
// transport (integration_p2p, shm_e2e, tcp_e2e): the values received and the result names
// and error texts, worked out here rather than trusted to the probe. Include after <catch.hpp>.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "integration/pattern.h"
#include "launcher/rank_run.h"

namespace p2p_expect {

// The lines of text that contain part.
inline std::vector<std::string> lines_with(const std::string& text, const std::string& part) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    std::string line = text.substr(b, e - b);
    if (line.find(part) != std::string::npos) out.push_back(line);
    b = e + 1;
  }
  return out;
}

// The job ended by itself with status 0.
inline void ended_cleanly(const launcher_test::RankRun& r) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(r.end.exit_code == 0);
}

// basic: the token went once around the ring (rank 0 gets it back with one added per other
// rank), the self-send arrived, every rank is on one host.
inline void basic(const launcher_test::RankRun& r, int np) {
  ended_cleanly(r);
  INFO("stdout:\n" << r.out);
  for (int rank = 0; rank < np; ++rank) {
    const long token = rank == 0 ? 1000 + np - 1 : 1000 + rank;
    char line[160];
    std::snprintf(line, sizeof line, "rank %d of %d: basic ok token %ld self %d local %d of %d\n", rank, np, token,
                  42 + rank, rank, np);
    CHECK(launcher_test::count_of(r.out, line) == 1);
  }
}

// sizes: every rank received each message from the rank before it, byte for byte (the
// hash of the pattern that sender sent), and nothing past its end.
inline void sizes(const launcher_test::RankRun& r, int np) {
  ended_cleanly(r);
  INFO("stdout:\n" << r.out);
  const size_t sizes[] = {0, 1, 7, 1000, 65535, 65536, 65537, 1 << 20, (64u << 20) + 3};
  for (int rank = 0; rank < np; ++rank) {
    const int from = (rank + np - 1) % np;
    int msg = 0;
    for (size_t n : sizes) {
      char line[200];
      std::snprintf(line, sizeof line, "rank %d: sizes message %d from %d: %zu bytes fnv %016llx, the rest untouched\n",
                    rank, msg, from, n, static_cast<unsigned long long>(probe::pattern_fnv1a(from, msg, n)));
      CHECK(launcher_test::count_of(r.out, line) == 1);
      ++msg;
    }
  }
}

}  // namespace p2p_expect
