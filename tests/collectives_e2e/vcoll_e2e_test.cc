// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The collectives with a count per rank end to end: vcoll_probe ranks started by nexrun,
// on shared memory (the default on one host) and on QUIC, worlds of 1 to 8 ranks, split
// communicators, and ranks whose counts disagree.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

Run probe(int np, const std::string& scenarios, std::vector<std::string> env) {
  env.emplace_back("NEXAR_TIMEOUT=60");  // push_back of a temporary: GCC 12's false -Warray-bounds
  return launcher_test::run_ranks(np, {VCOLL_PROBE, scenarios}, env, {}, 120s);
}

void expect_ok(const Run& r, int np, std::initializer_list<const char*> scenarios) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(r.end.exit_code == 0);
  for (const char* s : scenarios) REQUIRE(count_of(r.out, std::string(": ") + s + " ok") == static_cast<size_t>(np));
}

}  // namespace

TEST_CASE("collectives with a count per rank on shared memory, 1-8 ranks", "[e2e]") {
  for (int np : {1, 3, 8}) {
    INFO(np << " ranks");
    const Run r = probe(np, np >= 2 ? "correct,split,invalid,cxx" : "correct,invalid,cxx", {});
    if (np >= 2) expect_ok(r, np, {"correct", "split", "invalid", "cxx"});
    else expect_ok(r, np, {"correct", "invalid", "cxx"});
  }
}

TEST_CASE("alltoallv by direct reads on shared memory", "[e2e]") {
  // Every rank pushes its send data (the default for these small counts), none does, and
  // a mix: at 120 bytes ranks sending more (the hot pattern's, two of the empty-rank
  // pattern's five) are read from their own buffers while the others push, in one call.
  for (const char* push : {"NEXAR_SHM_ALLTOALLV_PUSH=1048576", "NEXAR_SHM_ALLTOALLV_PUSH=0", "NEXAR_SHM_ALLTOALLV_PUSH=120"}) {
    INFO(push);
    expect_ok(probe(5, "correct,inplace,invalid", {"NEXAR_ALGO=alltoallv:shm_direct", push}), 5,
              {"correct", "inplace", "invalid"});
  }
}

TEST_CASE("a destroy right after a pushed alltoallv does not wait for a reader that has not read", "[e2e]") {
  const Run r = probe(2, "destroy_pushed", {"NEXAR_ALGO=alltoallv:shm_direct", "NEXAR_SHM_ALLTOALLV_PUSH=1048576",
                                            "NEXAR_FAULT_STOP=1:alltoallv_read"});
  expect_ok(r, 2, {"destroy_pushed"});
}

TEST_CASE("collectives with a count per rank over QUIC, both alltoallv algorithms", "[e2e]") {
  for (const char* algo : {"alltoallv:pairwise", "alltoallv:scattered"}) {
    INFO(algo);
    expect_ok(probe(4, "correct,split", {"NEXAR_TRANSPORT=quic", std::string("NEXAR_ALGO=") + algo}), 4,
              {"correct", "split"});
  }
}

TEST_CASE("alltoallv bruck over QUIC, 5 ranks: uneven, empty and in place, and its count rounds' mismatch", "[e2e]") {
  const Run r = probe(5, "correct,inplace,mismatch", {"NEXAR_TRANSPORT=quic", "NEXAR_ALGO=alltoallv:bruck"});
  expect_ok(r, 5, {"correct", "inplace", "mismatch"});
  REQUIRE(count_of(r.out, "alltoallv: rank 1 sends 5 elements to rank 2 where rank 2 expects 4 from rank 1") == 2);
}

TEST_CASE("alltoallv counts that disagree: NEXAR_ERR_MISMATCH naming both ranks and counts", "[e2e]") {
  // Shared memory with direct reads (its own pair check; pushed and read in place) and
  // with messages; QUIC.
  const std::string direct = "NEXAR_ALGO=alltoallv:shm_direct";
  for (const std::vector<std::string>& env : std::vector<std::vector<std::string>>{
           {direct, "NEXAR_SHM_ALLTOALLV_PUSH=1048576"}, {direct, "NEXAR_SHM_ALLTOALLV_PUSH=0"},
           {"NEXAR_ALGO=alltoallv:pairwise"}, {"NEXAR_TRANSPORT=quic"}}) {
    INFO(env.back());
    const Run r = probe(4, "mismatch", env);
    expect_ok(r, 4, {"mismatch"});
    REQUIRE(count_of(r.out, "alltoallv: rank 1 sends 5 elements to rank 2 where rank 2 expects 4 from rank 1") == 2);
  }
}
