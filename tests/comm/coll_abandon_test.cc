// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A collective whose transfer fails ends at once: every other transfer it started is
// cancelled and drained before the algorithm's frame (its scratch buffers) unwinds. Two
// communicators in one process on two engines joined by real shared memory (ShmPair);
// the algorithm sends from frame-local scratch to a rank that never receives it, then a
// receive fails (the peer sends more than expected).
#include <catch.hpp>

#include <vector>

#include "comm/coll_descriptor.h"
#include "comm/comm_coll_context.h"
#include "two_comms.h"

namespace nexar::comm {
namespace {

using test::TwoComms;

// The algorithm: a 256 KiB send from its own scratch (the peer never posts the receive, so
// the link still reads the scratch), then a receive of 8 bytes the peer answers with 16.
Status failing_algorithm(coll::CollContext& ctx) {
  std::vector<unsigned char> scratch(256u << 10, 0x5a);
  coll::Pending send;
  NX_RETURN_IF_ERROR(ctx.isend(1, 1, scratch.data(), scratch.size(), &send));
  unsigned char small[8];
  return ctx.recv(1, 2, small, sizeof small);
}

TEST_CASE("a failed transfer cancels the collective's other transfers before the algorithm returns", "[comm]") {
  TwoComms t;
  coll::CollArgs args;
  args.kind = coll::CollKind::ALLREDUCE;
  args.count = 2;
  const uint64_t desc = pack_descriptor(args);
  CommCollContext peer(*t.comm[1], 1, desc);
  unsigned char too_long[16] = {};
  REQUIRE(peer.send(0, 2, too_long, sizeof too_long).ok());

  CommCollContext ctx(*t.comm[0], 1, desc);
  const Status st = failing_algorithm(ctx);
  CHECK(st.code() == NEXAR_ERR_MISMATCH);
  INFO(st.to_string());
  // Nothing outlives the frame: the send from its scratch is cancelled and drained.
  CHECK(ctx.unfinished() == 0);
  // Later transfers of the failed collective fail at once with its error.
  unsigned char b[4];
  coll::Pending p;
  CHECK(ctx.irecv(1, 3, b, sizeof b, &p).code() == NEXAR_ERR_MISMATCH);
}

}  // namespace
}  // namespace nexar::comm
