// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_allreduce_compressed end to end: compress_probe under nexrun with 3 ranks on
// shared memory and 4 over QUIC (the seed counted values twice from 3 ranks on).
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using namespace std::chrono_literals;

namespace {
void check(int np, const std::vector<std::string>& env) {
  auto r = launcher_test::run_ranks(np, {COMPRESS_PROBE}, env, {}, 90s);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(count_of(r.out, "compressed ok") == static_cast<size_t>(np));
  CHECK(count_of(r.out, "mismatch ok") == static_cast<size_t>(np));
}
}  // namespace

TEST_CASE("compressed allreduce on shared memory, 3 ranks", "[compress]") { check(3, {}); }

TEST_CASE("compressed allreduce over QUIC, 4 ranks", "[compress]") { check(4, {"NEXAR_TRANSPORT=quic"}); }
