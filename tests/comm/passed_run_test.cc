// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A remembered call runs the algorithm chosen for it (comm::run_passed_call) only while
// the parameters it was chosen under hold: NEXAR_ALGO changed between two calls changes
// the algorithm the next call runs, on every rank. Two communicators in one process over
// real shared memory (TwoComms), each rank's call on its own thread.
#include <catch.hpp>

#include <cstdint>
#include <string>
#include <thread>

#include "algo_env.h"
#include "comm/call_words.h"
#include "comm/comm_coll_context.h"
#include "core/params.h"
#include "two_comms.h"

namespace nexar::comm {
namespace {

using nexar::test::set_algo;

// Both ranks run the remembered allreduce of 4 int32 (SUM) once; each must succeed with
// the sum. Returns the algorithm rank 0 ran, after checking rank 1 ran the same.
std::string run_both(test::TwoComms& t, PassedRun (&run)[2]) {
  int32_t in[2][4], out[2][4];
  coll::CollArgs args[2];
  Status st[2];
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 4; ++i) in[r][i] = 10 * r + i, out[r][i] = -1;
    args[r].kind = coll::CollKind::ALLREDUCE;
    args[r].sendbuf = in[r];
    args[r].recvbuf = out[r];
    args[r].count = 4;
    args[r].dtype = NEXAR_INT32;
    args[r].op = NEXAR_SUM;
    run[r].words = call_words(args[r], 2);  // as api/call_checks.h remembers them
  }
  std::thread peer([&] { st[1] = run_passed_call(*t.comm[1], args[1], run[1]); });
  st[0] = run_passed_call(*t.comm[0], args[0], run[0]);
  peer.join();
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r << ": " << st[r].to_string());
    REQUIRE(st[r].ok());
    for (int i = 0; i < 4; ++i) CHECK(out[r][i] == 10 + 2 * i);
    REQUIRE(run[r].choice.algo);
  }
  CHECK(std::string(run[1].choice.algo->name) == run[0].choice.algo->name);
  return run[0].choice.algo->name;
}

TEST_CASE("a remembered call runs the algorithm NEXAR_ALGO forces once it changes", "[comm]") {
  set_algo(nullptr);
  test::TwoComms t;
  PassedRun run[2];
  const std::string chosen = run_both(t, run);
  CHECK(!run[0].choice.forced);
  CHECK(run_both(t, run) == chosen);  // the same call again: the remembered choice
  const std::string other = chosen == "ring" ? "recursive_doubling" : "ring";
  set_algo(("allreduce:" + other).c_str());
  CHECK(run_both(t, run) == other);
  CHECK(run[0].choice.forced);
  set_algo(nullptr);
  CHECK(run_both(t, run) == chosen);
  CHECK(!run[0].choice.forced);
}

}  // namespace
}  // namespace nexar::comm
