// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Scratch blocks of the algorithms (TempBuf) are kept by their thread for the next call,
// so a repeated collective does not fault its scratch pages in again every call.
#include <catch.hpp>

#include <cstdlib>
#include <cstring>

#include "collectives/coll_util.h"
#include "collectives/scratch_cache.h"
#include "core/params.h"
#include "page_faults.h"

using nexar::coll::scratch_kept_bytes;
using nexar::coll::TempBuf;

namespace {

// What a ring reduce-scatter at np 2 and 1 MiB does each call: two 512 KiB blocks,
// written through, then freed.
void one_call() {
  TempBuf acc, rbuf;
  REQUIRE(acc.alloc(512 << 10, "acc").ok());
  REQUIRE(rbuf.alloc(512 << 10, "rbuf").ok());
  std::memset(acc.data(), 1, 512 << 10);
  std::memset(rbuf.data(), 2, 512 << 10);
}

void set_keep(const char* v) {
  if (v) setenv("NEXAR_SCRATCH_KEEP", v, 1);
  else unsetenv("NEXAR_SCRATCH_KEEP");
  nexar::params::reload();
}

}  // namespace

TEST_CASE("scratch blocks are kept for the next call and not faulted in again") {
  set_keep(nullptr);
  one_call();  // the first call faults its 256 pages in
  REQUIRE(scratch_kept_bytes() == 2u * (512 << 10));
  const long before = thread_minor_faults();
  for (int i = 0; i < 20; ++i) one_call();
  // Freed each time (NEXAR_SCRATCH_KEEP=0), glibc trims the heap and the 20 calls take
  // ~5000 faults here; kept, none (a few for anything else the thread touches).
  CHECK(thread_minor_faults() - before < 64);
  CHECK(scratch_kept_bytes() == 2u * (512 << 10));
}

TEST_CASE("NEXAR_SCRATCH_KEEP bounds what a thread keeps") {
  set_keep("0");
  one_call();
  CHECK(scratch_kept_bytes() == 0);
  set_keep("600000");  // room for one of the two blocks
  one_call();
  CHECK(scratch_kept_bytes() == 512u << 10);
  {
    TempBuf big;  // larger than the limit: used, then freed
    REQUIRE(big.alloc(1 << 20, "big").ok());
    big.data()[(1 << 20) - 1] = 1;
  }
  CHECK(scratch_kept_bytes() == 512u << 10);
  set_keep(nullptr);
  {
    TempBuf big;  // a larger block replaces the smaller kept ones when they do not all fit
    REQUIRE(big.alloc(64u << 20, "whole limit").ok());
  }
  CHECK(scratch_kept_bytes() == 64u << 20);
  set_keep("0");
  {
    TempBuf big;  // takes the kept block; with nothing to be kept it is freed after
    REQUIRE(big.alloc(1 << 20, "limit 0").ok());
  }
  CHECK(scratch_kept_bytes() == 0);
}
