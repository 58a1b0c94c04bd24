// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// remote_failure: a result code read from a peer is a failure nexar names, or
// NEXAR_ERR_PROTOCOL naming the code (fuzz_shm_records found a record whose code,
// 786452, was cast straight into nexar_result_t).
#include <catch.hpp>

#include "core/remote_status.h"

using nexar::remote_failure;
using nexar::Status;

TEST_CASE("a peer's known failure code is kept with its text", "[core]") {
  const Status s = remote_failure(NEXAR_ERR_PEER_LOST, "rank 2 left");
  CHECK(s.code() == NEXAR_ERR_PEER_LOST);
  CHECK(s.message() == "rank 2 left");
  CHECK(remote_failure(NEXAR_ERR_INVALID_ARGUMENT, "").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(remote_failure(NEXAR_ERR_REVOKED, "").code() == NEXAR_ERR_REVOKED);
}

TEST_CASE("a code that names no failure is a protocol error naming it", "[core]") {
  for (int64_t code : {int64_t{786452}, int64_t{NEXAR_SUCCESS}, int64_t{NEXAR_IN_PROGRESS}, int64_t{-12},
                       int64_t{INT32_MIN}, int64_t{INT64_MIN}}) {
    const Status s = remote_failure(code, "why");
    INFO(code << ": " << s.to_string());
    CHECK(s.code() == NEXAR_ERR_PROTOCOL);
    CHECK(s.message() == "a peer sent result code " + std::to_string(code) + ", which names no failure: why");
  }
}
