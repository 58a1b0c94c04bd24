// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Communicators end to end: split, dup, nested splits, destroy order, threads, numr-style
// code and 3-D parallel groups, with real ranks under nexrun.
#include <catch.hpp>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

namespace {
void run_ok(int np, const std::string& scenario) {
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", std::to_string(np), COMM_PROBE, scenario}, &out, &err, 90s);
  INFO("np " << np << " " << scenario << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(end.exit_code == 0);
  REQUIRE(launcher_test::count_of(out, scenario + " ok") == static_cast<size_t>(np));
}
}  // namespace

TEST_CASE("split by parity with reversed keys on 4, 7 and 8 ranks", "[comm]") {
  for (int np : {4, 7, 8}) run_ok(np, "split_parity");
}
TEST_CASE("NEXAR_UNDEFINED gives no communicator", "[comm]") { run_ok(5, "undefined"); }
TEST_CASE("nested splits, a grandchild destroyed first", "[comm]") { run_ok(8, "nested"); }
TEST_CASE("dup: same ranks, own message space; destroying a child spares parent and sibling", "[comm]") {
  run_ok(3, "dup");
}
TEST_CASE("sibling communicators used concurrently from two threads", "[comm]") { run_ok(4, "threads"); }
TEST_CASE("numr's communicator tests, ported to nexar::Communicator", "[comm]") { run_ok(2, "numr"); }
TEST_CASE("TP x PP x DP = 2 x 2 x 2 groups in numr's layout", "[comm]") { run_ok(8, "groups"); }
