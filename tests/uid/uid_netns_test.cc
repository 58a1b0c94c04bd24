// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Started without nexrun on two namespace hosts (tests/multihost): the id's rendezvous is
// on the maker's own non-loopback address (no NEXAR_ADDR), shared memory within a host,
// QUIC between them.
#include <catch.hpp>

#include "multihost/shared_testbed.h"
#include "uid/uid_expect.h"
#include "uid/uid_job.h"

using launcher_test::count_of;
using namespace uid_test;

TEST_CASE("four ranks on two namespace hosts join with a unique id", "[uid][multihost]") {
  multihost_test::NetnsTestbed* bed = multihost_test::shared_testbed(2);
  if (!bed) return;
  std::vector<Member> members;
  for (int r = 0; r < 4; ++r) members.push_back({r, 4, "", r < 2 ? "mhA" : "mhB"});
  Result r = run(members, "coll", {"NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=BOOT,INIT"}, /*loopback=*/false);
  INFO(r.out << r.err);
  for (const Ended& e : r.ended) CHECK(e.exit_code == 0);
  CHECK(count_of(r.out, ": coll ok") == 4);
  expect_coll_results(r.out, 4);
  CHECK(count_of(r.err, "serves the rendezvous at 169.254.77.") == 1);  // mhA's address, not loopback
  CHECK(count_of(r.err, "shared memory") >= 2);                        // within a host
  CHECK(count_of(r.err, ": QUIC") >= 4);                               // between hosts
}
