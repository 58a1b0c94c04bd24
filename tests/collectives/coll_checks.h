// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One check per collective: runs it on a ThreadWorld of p ranks with the algorithm
// currently forced (or chosen), and compares every rank's result with a locally computed
// reference. Failures are Catch REQUIREs naming the case.
#pragma once

#include <string>
#include <vector>

#include "collectives/algo_table.h"
#include "collectives/collective.h"
#include "nexar/nexar.h"
#include "thread_world.h"

namespace nexar::coll::test {

struct Case {
  int p = 1;
  size_t count = 0;
  nexar_dtype_t dtype = NEXAR_FLOAT32;
  nexar_op_t op = NEXAR_SUM;
  int root = 0;
  bool in_place = false;
  std::string label() const;
};

// REQUIRE(got == want) that reports sizes and the first differing byte, not the data.
void require_same(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want);

// Runs c on the kind's collective in a ThreadWorld made with opts; checks results and
// that no message is left over.
void check_collective(CollKind kind, const Case& c, const ThreadWorld::Options& opts = {});

// Algorithms of a kind in table order.
std::vector<const AlgoDesc*> algos_of(CollKind kind);
// Whether d can run with p ranks (its why_not).
bool applies(const AlgoDesc& d, int p);
// World sizes of the default suite, or the "long" extras (11, 16).
std::vector<int> world_sizes(bool long_suite);
// 0, 1, fewer than the ranks, and two odd primes.
std::vector<size_t> test_counts(int p);
// Roots worth trying for p ranks: 0, the last, and one in the middle.
std::vector<int> test_roots(int p);
// Runs every algorithm of kind over sizes x counts x roots x in-place, with cases made
// by make(p, count, root, in_place).
void sweep(CollKind kind, bool long_suite, nexar_dtype_t dtype, nexar_op_t op, bool has_in_place);

}  // namespace nexar::coll::test
