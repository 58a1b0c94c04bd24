// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Remote procedure calls between two communicators in one process, on two engines joined
// by real shared memory (ShmPair), each with its self link: handlers run on the target's
// service thread while nothing else of the target runs; errors, capacity, timeouts, a lost
// target, many calls from many threads, calls to oneself, large arguments and results.
#include <catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "comm/comm.h"
#include "comm/rpc_call.h"
#include "comm/rpc_service.h"
#include "p2p/self_link.h"
#include "shm/shm_pair.h"

namespace nexar::comm {
namespace {

constexpr uint32_t kBase = 44;

struct TwoComms {
  shm::test::ShmPair pair{shm::test::PairOptions{64u << 10, 4096, true, 256u << 20}};
  std::unique_ptr<p2p::SelfLink> self[2];
  std::unique_ptr<Comm> comm[2];
  explicit TwoComms(double timeout_s = 20.0) {
    REQUIRE(pair.status().ok());
    for (int r = 0; r < 2; ++r) {
      self[r] = std::make_unique<p2p::SelfLink>(&pair.engine(r), r);
      pair.engine(r).set_link(r, self[r].get());
      auto w = std::make_shared<WorldInfo>();
      w->engine = &pair.engine(r);
      w->host_ids = {"host-a", "host-b"};
      w->shm = &pair.hub(r);
      REQUIRE(w->contexts.reserve(kBase));
      comm[r] = std::make_unique<Comm>(w, kBase, std::vector<int>{0, 1}, r, timeout_s);
    }
  }
  ~TwoComms() {
    for (auto& c : comm) c.reset();  // services stop before the engines go
  }
};

// A blocking call from comm c: the status, the result in *out.
Status call(Comm& c, int target, uint32_t fn, const std::vector<uint8_t>& args, std::vector<uint8_t>* out,
            size_t capacity = 4096) {
  out->assign(capacity, 0);
  std::unique_ptr<rpc::Call> call;
  const auto deadline = c.deadline();
  NX_RETURN_IF_ERROR(rpc::Call::start(c, target, fn, args.data(), args.size(), out->data(), out->size(), &call));
  size_t n = 0;
  Status st = call->finish(deadline, &n);
  out->resize(st.ok() ? n : 0);
  return st;
}

// Answers the arguments reversed, prefixed by the caller's rank.
rpc::Handler reverser() {
  return [](int caller, const uint8_t* a, size_t n, std::vector<uint8_t>* r) {
    r->assign(1, static_cast<uint8_t>(caller));
    for (size_t i = n; i > 0; --i) r->push_back(a[i - 1]);
    return Status::Ok();
  };
}

TEST_CASE("a call runs its handler on the target's own thread and returns its result", "[rpc]") {
  TwoComms t;
  std::atomic<bool> on_service_thread{false};
  const auto main_id = std::this_thread::get_id();
  REQUIRE(t.comm[1]->rpc().add(7, [&](int caller, const uint8_t* a, size_t n, std::vector<uint8_t>* r) {
    on_service_thread = std::this_thread::get_id() != main_id;
    return reverser()(caller, a, n, r);
  }).ok());
  std::vector<uint8_t> out;
  REQUIRE(call(*t.comm[0], 1, 7, {1, 2, 3}, &out).ok());
  CHECK(out == std::vector<uint8_t>{0, 3, 2, 1});
  CHECK(on_service_thread);
  // Empty arguments, empty result.
  REQUIRE(t.comm[1]->rpc().add(8, [](int, const uint8_t*, size_t, std::vector<uint8_t>*) { return Status::Ok(); }).ok());
  REQUIRE(call(*t.comm[0], 1, 8, {}, &out).ok());
  CHECK(out.empty());
}

TEST_CASE("registering a function twice is refused", "[rpc]") {
  TwoComms t;
  REQUIRE(t.comm[0]->rpc().add(1, reverser()).ok());
  const Status st = t.comm[0]->rpc().add(1, reverser());
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("function 1") != std::string::npos);
}

TEST_CASE("unknown functions, results over the capacity and failing handlers give their errors", "[rpc]") {
  TwoComms t;
  REQUIRE(t.comm[1]->rpc().add(2, [](int, const uint8_t*, size_t, std::vector<uint8_t>* r) {
    r->assign(100, 9);
    return Status::Ok();
  }).ok());
  REQUIRE(t.comm[1]->rpc().add(3, [](int, const uint8_t*, size_t, std::vector<uint8_t>*) {
    return Status(NEXAR_ERR_MISMATCH, "the handler refused");
  }).ok());
  Comm& c = *t.comm[0];
  std::vector<uint8_t> out;

  Status st = call(c, 1, 99, {1}, &out);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("no RPC function 99") != std::string::npos);

  // Capacity 10 for a 100-byte result: refused at the target, its size reported, nothing written.
  std::vector<uint8_t> small(10, 0);
  std::unique_ptr<rpc::Call> cl;
  REQUIRE(rpc::Call::start(c, 1, 2, nullptr, 0, small.data(), small.size(), &cl).ok());
  size_t n = 0;
  st = cl->finish(c.deadline(), &n);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(n == 100);
  CHECK(st.message().find("100 bytes") != std::string::npos);
  CHECK(small == std::vector<uint8_t>(10, 0));

  st = call(c, 1, 3, {}, &out);
  CHECK(st.code() == NEXAR_ERR_MISMATCH);
  CHECK(st.message().find("the handler refused") != std::string::npos);

  // None of these broke anything.
  CHECK(c.check_usable().ok());
  REQUIRE(call(c, 1, 2, {}, &out, 100).ok());
  CHECK(out == std::vector<uint8_t>(100, 9));
}

TEST_CASE("calls to oneself, and calls in flight from many threads to both ranks, one handler at a time", "[rpc]") {
  TwoComms t;
  std::atomic<int> inside[2] = {0, 0};
  std::atomic<int> overlap{0};
  for (int r = 0; r < 2; ++r) {
    REQUIRE(t.comm[r]->rpc().add(5, [&, r](int caller, const uint8_t* a, size_t n, std::vector<uint8_t>* out) {
      if (inside[r].fetch_add(1) != 0) overlap++;
      std::this_thread::yield();
      Status st = reverser()(caller, a, n, out);
      inside[r].fetch_sub(1);
      return st;
    }).ok());
  }
  constexpr int kThreads = 6, kCalls = 40;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      Comm& c = *t.comm[th % 2];
      for (int i = 0; i < kCalls; ++i) {
        const int target = (th + i) % 2;  // half of them to the caller itself
        std::vector<uint8_t> args{static_cast<uint8_t>(th), static_cast<uint8_t>(i), 77};
        std::vector<uint8_t> out;
        Status st = call(c, target, 5, args, &out);
        if (!st.ok()) {
          failed++;
          continue;
        }
        if (out != std::vector<uint8_t>{static_cast<uint8_t>(th % 2), 77, static_cast<uint8_t>(i), static_cast<uint8_t>(th)})
          wrong++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
  CHECK(overlap == 0);
}

TEST_CASE("icalls overlap, each with its own reply", "[rpc]") {
  TwoComms t;
  REQUIRE(t.comm[1]->rpc().add(4, reverser()).ok());
  constexpr int kCalls = 32;
  std::vector<std::vector<uint8_t>> out(kCalls, std::vector<uint8_t>(8));
  std::vector<std::unique_ptr<rpc::Call>> calls(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    const uint8_t args[2] = {static_cast<uint8_t>(i), 200};
    REQUIRE(rpc::Call::start(*t.comm[0], 1, 4, args, 2, out[i].data(), out[i].size(), &calls[i]).ok());
  }
  for (int i = kCalls - 1; i >= 0; --i) {  // waited for in the other order
    size_t n = 0;
    REQUIRE(calls[i]->finish(t.comm[0]->deadline(), &n).ok());
    CHECK(n == 3);
    CHECK(out[i][0] == 0);
    CHECK(out[i][1] == 200);
    CHECK(out[i][2] == i);
  }
}

TEST_CASE("large arguments and results travel whole", "[rpc]") {
  TwoComms t;
  REQUIRE(t.comm[1]->rpc().add(6, reverser()).ok());
  std::vector<uint8_t> args(1u << 20);
  for (size_t i = 0; i < args.size(); ++i) args[i] = static_cast<uint8_t>(i * 7 + (i >> 12));
  std::vector<uint8_t> out;
  REQUIRE(call(*t.comm[0], 1, 6, args, &out, args.size() + 1).ok());
  REQUIRE(out.size() == args.size() + 1);
  bool same = true;
  for (size_t i = 0; i < args.size() && same; ++i) same = out[i + 1] == args[args.size() - 1 - i];
  CHECK(same);
}

TEST_CASE("a call times out without breaking the communicator; the late reply is dropped", "[rpc]") {
  TwoComms t(0.3);
  std::atomic<bool> slow{true};
  REQUIRE(t.comm[1]->rpc().add(1, [&](int caller, const uint8_t* a, size_t n, std::vector<uint8_t>* r) {
    if (slow.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(900));
    return reverser()(caller, a, n, r);
  }).ok());
  std::vector<uint8_t> out;
  const auto t0 = std::chrono::steady_clock::now();
  Status st = call(*t.comm[0], 1, 1, {5}, &out);
  CHECK(st.code() == NEXAR_ERR_TIMEOUT);
  CHECK(st.message().find("no reply") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(t.comm[0]->check_usable().ok());
  t.comm[0]->set_timeout(20.0);
  REQUIRE(call(*t.comm[0], 1, 1, {6}, &out).ok());  // served after the slow one: its reply went nowhere
  CHECK(out == std::vector<uint8_t>{0, 6});
}

TEST_CASE("a target lost during the call gives NEXAR_ERR_PEER_LOST, not a hang", "[rpc]") {
  TwoComms t;
  std::atomic<bool> entered{false};
  REQUIRE(t.comm[1]->rpc().add(1, [&](int, const uint8_t*, size_t, std::vector<uint8_t>*) {
    entered = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return Status::Ok();
  }).ok());
  std::thread loser([&] {
    while (!entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    t.pair.engine(0).on_peer_lost(1, Status(NEXAR_ERR_PEER_LOST, "rank 1 exited (test)"));
  });
  std::vector<uint8_t> out;
  Status st = call(*t.comm[0], 1, 1, {}, &out);
  loser.join();
  CHECK(st.code() == NEXAR_ERR_PEER_LOST);
  CHECK(st.message().find("RPC function 1 on rank 1") != std::string::npos);
  // And at once for a later call.
  CHECK(call(*t.comm[0], 1, 1, {}, &out).code() == NEXAR_ERR_PEER_LOST);
}

}  // namespace
}  // namespace nexar::comm
