// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "vector_layout.h"

namespace nexar::coll::test {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::UNIFORM: return "uniform";
    case Pattern::HOT: return "hot receiver";
    case Pattern::EMPTY_RANKS: return "empty ranks";
  }
  return "?";
}

std::vector<std::vector<size_t>> make_counts(int p, size_t n, Pattern pat) {
  std::vector<std::vector<size_t>> c(static_cast<size_t>(p), std::vector<size_t>(static_cast<size_t>(p), n));
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) {
      size_t& v = c[static_cast<size_t>(i)][static_cast<size_t>(j)];
      if (pat == Pattern::HOT && j == 0) v = 4 * n;
      if (pat == Pattern::EMPTY_RANKS)
        v = (i == p - 1 || j == p - 1 || (i == 1 && j == 0)) ? 0 : n + static_cast<size_t>(i + j);
    }
  return c;
}

std::vector<size_t> make_displs(const std::vector<size_t>& counts, bool gaps, size_t* extent) {
  std::vector<size_t> d(counts.size());
  size_t at = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const size_t i = gaps ? counts.size() - 1 - k : k;
    if (gaps) at += 3;
    d[i] = at;
    at += counts[i];
  }
  *extent = at;
  return d;
}

}  // namespace nexar::coll::test
