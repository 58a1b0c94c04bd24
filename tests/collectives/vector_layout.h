// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Test layouts for the collectives with a count per rank: who sends how many elements to
// whom (uniform, one hot receiver, empty ranks), and where each block lies in a buffer
// (in rank order, or reversed with a gap before every block, so a write into a gap shows).
#pragma once

#include <string>
#include <vector>

namespace nexar::coll::test {

enum class Pattern { UNIFORM, HOT, EMPTY_RANKS };
const char* pattern_name(Pattern p);

// counts[i][j]: elements rank i sends to rank j. UNIFORM: n each; HOT: rank 0 receives 4n
// from everyone; EMPTY_RANKS: the last rank sends and receives nothing, rank 1 sends
// nothing to rank 0, the others n + i + j.
std::vector<std::vector<size_t>> make_counts(int p, size_t n, Pattern pat);

// Displacements of blocks with these counts: gaps false: end to end in order; true: in
// reverse rank order with 3 elements of gap before each. *extent: elements the buffer needs.
std::vector<size_t> make_displs(const std::vector<size_t>& counts, bool gaps, size_t* extent);

}  // namespace nexar::coll::test
