// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Communicators end to end: split, dup, nested splits, destroy order, threads, numr-style
// code and 3-D parallel groups, with real ranks under nexrun.
#include <catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

namespace {
// The job's stdout; it ended cleanly and every rank finished the scenario.
std::string run_ok(int np, const std::string& scenario) {
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", std::to_string(np), COMM_PROBE, scenario}, &out, &err, 90s);
  INFO("np " << np << " " << scenario << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(end.exit_code == 0);
  REQUIRE(launcher_test::count_of(out, scenario + " ok") == static_cast<size_t>(np));
  return out;
}

std::string joined(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// Rank r printed exactly this line.
void printed(const std::string& out, int r, const std::string& rest) {
  INFO("stdout:\n" << out);
  CHECK(launcher_test::count_of(out, "rank " + std::to_string(r) + ": " + rest + "\n") == 1);
}
}  // namespace

TEST_CASE("split by parity with reversed keys on 4, 7 and 8 ranks", "[comm]") {
  for (int np : {4, 7, 8}) {
    const std::string out = run_ok(np, "split_parity");
    // Members of r's parity, highest world rank first (key -r); r's child rank is its place.
    for (int r = 0; r < np; ++r) {
      std::vector<int> want;
      for (int q = np - 1; q >= 0; --q)
        if (q % 2 == r % 2) want.push_back(q);
      const int child_rank = static_cast<int>(std::find(want.begin(), want.end(), r) - want.begin());
      printed(out, r, "split_parity child rank " + std::to_string(child_rank) + " members " + joined(want));
    }
  }
}
TEST_CASE("NEXAR_UNDEFINED gives no communicator", "[comm]") {
  const std::string out = run_ok(5, "undefined");
  for (int r = 0; r < 5; ++r) printed(out, r, r % 3 == 0 ? "undefined no child" : "undefined child members 1,2,4");
}
TEST_CASE("nested splits, a grandchild destroyed first", "[comm]") { run_ok(8, "nested"); }
TEST_CASE("dup: same ranks, own message space; destroying a child spares parent and sibling", "[comm]") {
  run_ok(3, "dup");
}
TEST_CASE("sibling communicators used concurrently from two threads", "[comm]") { run_ok(4, "threads"); }
TEST_CASE("numr's communicator tests, ported to nexar::Communicator", "[comm]") { run_ok(2, "numr"); }
TEST_CASE("TP x PP x DP = 2 x 2 x 2 groups in numr's layout", "[comm]") {
  const std::string out = run_ok(8, "groups");
  // Rank r = tp + 2 pp + 4 dp; each group varies one coordinate.
  for (int r = 0; r < 8; ++r) {
    const int tp0 = r & ~1, pp0 = r & ~2, dp0 = r & ~4;
    printed(out, r, "groups tp " + joined({tp0, tp0 + 1}) + " pp " + joined({pp0, pp0 + 2}) + " dp " +
                        joined({dp0, dp0 + 4}));
  }
}
