// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The owner's remembered one-rank call (api/owned_one_rank.h) runs with no claim of the
// collective queue only when each guarantee the claim gave still holds: on the owning
// thread, on an idle queue, with the same arguments, under the parameters' generation its
// algorithm was looked up under. A communicator of one rank on a real engine (ShmPair's
// first), the calls' checks as the one-rank route runs them.
#include <catch.hpp>

#include <cstdint>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "algo_env.h"
#include "api/owned_one_rank.h"
#include "collectives/select.h"
#include "device/cuda_detect.h"
#include "device/staged_collective.h"
#include "shm/shm_pair.h"

namespace nexar::api {
namespace {

struct OneRank {
  shm::test::ShmPair pair;
  std::unique_ptr<comm::Comm> comm;
  OneRank() {
    REQUIRE(pair.status().ok());
    auto w = std::make_shared<comm::WorldInfo>();
    w->engine = &pair.engine(0);
    w->host_ids = {"host-a"};
    REQUIRE(w->contexts.reserve(40));
    comm = std::make_unique<comm::Comm>(w, 40, std::vector<int>{0}, 0, 20.0);
  }
};

using nexar::test::set_algo;

// What the one-rank route does under the queue's claim for a call that passes: the
// algorithm looked up, the arguments and span remembered, then the owner's copy.
const coll::AlgoDesc* pass_route(comm::Comm& c, const coll::CollArgs& args) {
  const coll::AlgoDesc* d = coll::one_rank_algo(args.kind, &c.choice_cache());
  REQUIRE(d);
  uintptr_t lo, hi;
  device::buffer_span(args, 0, 1, &lo, &hi);
  c.passed_call().remember(args, lo, hi, comm::CallWords{});
  remember_owned(c, args, d);
  return d;
}

coll::CollArgs allreduce(const int32_t* in, int32_t* out, size_t count) {
  coll::CollArgs a;
  a.kind = coll::CollKind::ALLREDUCE;
  a.sendbuf = in;
  a.recvbuf = out;
  a.count = count;
  a.dtype = NEXAR_INT32;
  a.op = NEXAR_SUM;
  return a;
}

TEST_CASE("the owner's remembered one-rank call runs at once only while its guarantees hold", "[comm]") {
  set_algo(nullptr);
  OneRank t;
  comm::Comm& c = *t.comm;
  std::vector<int32_t> in(4, 7), out(4, 0);  // heap buffers (malloc's arena: the brk heap here)
  const coll::CollArgs args = allreduce(in.data(), out.data(), 4);
  CHECK(owned_one_rank_run(c, args) == nullptr);  // nothing remembered yet
  const coll::AlgoDesc* d = pass_route(c, args);
  const comm::OwnedRun* run = owned_one_rank_run(c, args);
  REQUIRE(run);
  CHECK(run->algo == d);
  CHECK(run->plain_bytes == 16);
  CHECK(run->in_heap == device::in_brk_heap(in.data(), 16));  // malloc's arena (not a sanitizer's)

  SECTION("other arguments") {
    CHECK(owned_one_rank_run(c, allreduce(in.data(), out.data(), 3)) == nullptr);
    coll::CollArgs other_op = args;
    other_op.op = NEXAR_MAX;
    CHECK(owned_one_rank_run(c, other_op) == nullptr);
  }
  SECTION("another thread: not the owner, and it remembers nothing") {
    const comm::OwnedRun* there = run;
    std::thread([&] {
      there = owned_one_rank_run(c, args);
      remember_owned(c, args, d);
    }).join();
    CHECK(there == nullptr);
    CHECK(owned_one_rank_run(c, args) == run);
  }
  SECTION("a collective queued or running: the call waits its turn on the route") {
    std::promise<void> go;
    std::shared_future<void> started = go.get_future().share();
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    auto task = std::make_shared<comm::CollTask>([&] {
      go.set_value();
      released.wait();
      return Status::Ok();
    });
    c.collectives().submit(task);
    started.wait();
    CHECK(owned_one_rank_run(c, args) == nullptr);
    release.set_value();
    REQUIRE(task->wait_until(p2p::Clock::now() + std::chrono::seconds(20)).ok());
    // The task's waiter may wake before the queue's thread marks the queue idle again.
    const auto deadline = p2p::Clock::now() + std::chrono::seconds(20);
    while (!c.collectives().idle() && p2p::Clock::now() < deadline) std::this_thread::yield();
    CHECK(owned_one_rank_run(c, args) == run);  // done: the queue is idle again
  }
  SECTION("NEXAR_ALGO changed: the route looks the algorithm up again") {
    set_algo("allreduce:ring");
    CHECK(owned_one_rank_run(c, args) == nullptr);
    CHECK(coll::one_rank_algo(args.kind, &c.choice_cache()) == nullptr);  // forced: the general path's
    set_algo(nullptr);
    CHECK(owned_one_rank_run(c, args) == nullptr);  // a newer generation than the remembered one
    pass_route(c, args);
    CHECK(owned_one_rank_run(c, args) == run);
  }
  SECTION("buffers outside the brk heap are tested as on the route (one entry per kind)") {
    int32_t stack_in[4] = {1, 2, 3, 4}, stack_out[4] = {};
    const coll::CollArgs on_stack = allreduce(stack_in, stack_out, 4);
    pass_route(c, on_stack);
    const comm::OwnedRun* r = owned_one_rank_run(c, on_stack);
    REQUIRE(r);
    CHECK(!r->in_heap);
  }
}

}  // namespace
}  // namespace nexar::api
