// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Shared by the collective tests: per-rank test data that is distinct per rank and per
// element yet reduces exactly (so any association order gives the reference's bits),
// a sequential reference reduction, and scoped NEXAR_* settings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nexar/nexar.h"

namespace nexar::coll::test {

using Bytes = std::vector<unsigned char>;

// count elements of rank's data, starting at element index `first`. Values are chosen
// per dtype and op so that sums, products, min and max over up to 16 ranks are exact.
Bytes make_data(int rank, size_t count, nexar_dtype_t dtype, nexar_op_t op, size_t first = 0);
// Random floats/ints (not exact under reassociation): for bit-identity checks.
Bytes make_random(int rank, size_t count, nexar_dtype_t dtype, uint32_t seed);

// ranks [lo, hi) of make_data folded in rank order; AVG divided by divisor (if > 0).
Bytes reference_reduce(int lo, int hi, size_t count, nexar_dtype_t dtype, nexar_op_t op, size_t first = 0);

// Sets (or with value nullptr, unsets) an environment variable for the scope, and makes
// the parameter registry read it again.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_old_;
};

std::string describe(nexar_dtype_t dtype, nexar_op_t op);
extern const nexar_dtype_t kAllDtypes[10];
extern const nexar_op_t kAllOps[5];

}  // namespace nexar::coll::test
