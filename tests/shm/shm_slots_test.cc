// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The shared-slot collectives end to end: real ranks under nexrun on one host, each
// algorithm forced in turn (slot_probe.cc says what every scenario checks).
#include <catch.hpp>

#include "shm/slot_checks.h"

using launcher_test::expect_ok;
using slot_test::run;
using namespace std::chrono_literals;

namespace {

const char* const kFlat = "NEXAR_ALGO=allreduce:shm_flat,broadcast:shm_flat,barrier:shm_flat";
const char* const kDirect = "NEXAR_ALGO=allreduce:shm_direct,broadcast:shm_flat,barrier:shm_flat";

}  // namespace

TEST_CASE("shm_flat and shm_direct: counts, dtypes, in place, identical bits on 1-8 ranks", "[shm][slots]") {
  for (int np : slot_test::kWorlds) {
    INFO("np " << np);
    // shm_flat carries up to 1 MiB inline here (its largest setting).
    expect_ok(run(np, "counts", {kFlat, "NEXAR_SHM_COLL_INLINE=1048576", "SLOT_MAX_BYTES=1048576"}), np, "counts ok");
    expect_ok(run(np, "counts", {kDirect}), np, "counts ok");
    // The model's own choice (shm_flat up to the 4096-byte limit, shm_stage above).
    expect_ok(run(np, "counts", {}), np, "counts ok");
  }
}

TEST_CASE("broadcast shm_split: roots, counts, every element where it belongs", "[shm][slots]") {
  for (int np : {2, 3}) {
    INFO("np " << np);
    expect_ok(run(np, "bcast", {"NEXAR_ALGO=broadcast:shm_split"}), np, "bcast ok");
  }
}

TEST_CASE("thousands of small slot allreduces alternating with p2p allgathers", "[shm][slots]") {
  for (int np : {2, 3, 8}) {
    INFO("np " << np);
    expect_ok(run(np, "storm", {"NEXAR_ALGO=allreduce:shm_flat,allgather:ring"}, 300s), np, "storm ok");
  }
}

TEST_CASE("ranks that disagree in a slot collective all get NEXAR_ERR_MISMATCH", "[shm][slots][errors]") {
  for (const char* what : {"count", "dtype", "op"})
    for (const char* algo : {kFlat, kDirect}) {
      INFO(what << " " << algo);
      slot_test::check_mismatch(run(3, std::string("mismatch:") + what, {algo}, 60s));
    }
}

TEST_CASE("a rank killed during a slot collective is an error on the others within seconds", "[shm][slots][fault]") {
  for (const char* algo : {kFlat, kDirect})
    for (int np : {2, 4}) {
      INFO(algo);
      slot_test::check_killed(run(np, "kill", {algo, std::string(algo) == kDirect ? "BIG=1" : "NOBIG=1"}, 60s), np);
    }
}

TEST_CASE("shm_flat and shm_direct on split and dup children", "[shm][slots][split]") {
  expect_ok(run(4, "split", {kDirect}), 4, "split ok");
  expect_ok(run(4, "split", {kFlat, "SLOT_MAX_BYTES=4096"}), 4, "split ok");
}
