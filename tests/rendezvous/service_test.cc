// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The Service (store + waits + status) and the DeadlineTimer that drives wait expiry,
// without any network: the same objects the server runs on its progress thread.
#include <catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "rendezvous/deadline_timer.h"
#include "rendezvous/service.h"

using namespace nexar::rendezvous;
using namespace std::chrono_literals;

namespace {
struct Answers {
  std::vector<Response> got;
  Service::Respond respond() {
    return [this](const Response& r) { got.push_back(r); };
  }
};
Request req(Op op, std::string key = "", std::string value = "", int64_t delta = 0,
            std::chrono::milliseconds wait = 0ms) {
  Request r;
  r.op = op;
  r.key = std::move(key);
  r.value = std::move(value);
  r.delta = delta;
  r.wait = wait;
  return r;
}
}  // namespace

TEST_CASE("service: set/get/add answer with the right HTTP status and body") {
  Service svc(nullptr, nullptr);
  Answers a;
  CHECK(svc.handle(req(Op::kGet, "k"), a.respond()) == 0);
  CHECK(svc.handle(req(Op::kSet, "k", "v"), a.respond()) == 0);
  CHECK(svc.handle(req(Op::kGet, "k"), a.respond()) == 0);
  CHECK(svc.handle(req(Op::kAdd, "n", "", 40), a.respond()) == 0);
  CHECK(svc.handle(req(Op::kAdd, "n", "", 2), a.respond()) == 0);
  CHECK(svc.handle(req(Op::kAdd, "k", "", 1), a.respond()) == 0);
  REQUIRE(a.got.size() == 6);
  CHECK(a.got[0].status == 404);
  CHECK(a.got[1].status == 204);
  CHECK(a.got[2].status == 200);
  CHECK(a.got[2].body == "v");
  CHECK(a.got[3].body == "40");
  CHECK(a.got[4].body == "42");
  CHECK(a.got[5].status == 400);
  CHECK(a.got[5].body.find("not a decimal integer") != std::string::npos);
}

TEST_CASE("service: a wait is answered by a later set, or by expiry with 404") {
  std::vector<Service::Clock::time_point> armed;
  Service svc(nullptr, [&](Service::Clock::time_point t) { armed.push_back(t); });
  Answers w1, w2, setter;
  KvStore::WaitId id1 = svc.handle(req(Op::kWait, "k", "", 0, 60s), w1.respond());
  KvStore::WaitId id2 = svc.handle(req(Op::kWait, "gone", "", 0, 0ms), w2.respond());
  CHECK(id1 != 0);
  CHECK(id2 != 0);
  CHECK(armed.size() == 2);
  CHECK(w1.got.empty());
  svc.handle(req(Op::kSet, "k", "hello"), setter.respond());
  REQUIRE(w1.got.size() == 1);
  CHECK(w1.got[0].status == 200);
  CHECK(w1.got[0].body == "hello");
  svc.expire(Service::Clock::now());
  REQUIRE(w2.got.size() == 1);
  CHECK(w2.got[0].status == 404);
  CHECK(svc.store().waiter_count() == 0);
}

TEST_CASE("service: a cancelled wait is never answered") {
  Service svc(nullptr, nullptr);
  Answers w, s;
  KvStore::WaitId id = svc.handle(req(Op::kWait, "k", "", 0, 60s), w.respond());
  svc.cancel(id);
  svc.handle(req(Op::kSet, "k", "v"), s.respond());
  CHECK(w.got.empty());
}

TEST_CASE("service: status is the callback's JSON, else the service's counters") {
  Answers a;
  Service mine(nullptr, nullptr);
  mine.client_connected();
  mine.handle(req(Op::kSet, "k", "v"), a.respond());
  mine.handle(req(Op::kWait, "w", "", 0, 60s), a.respond());
  mine.handle(req(Op::kStatus), a.respond());
  REQUIRE(a.got.size() == 2);
  CHECK(a.got[1].content_type == "application/json");
  CHECK(a.got[1].body == "{\"keys\":1,\"waiters\":1,\"clients\":1,\"requests\":3}");
  Service theirs([] { return std::string("{\"job\":\"j1\"}"); }, nullptr);
  theirs.handle(req(Op::kStatus), a.respond());
  CHECK(a.got[2].body == "{\"job\":\"j1\"}");
  CHECK(json_escape(std::string("a\"b\\c\n\x01", 7)) == "a\\\"b\\\\c\\n\\u0001");
}

TEST_CASE("timer: fires at the earliest armed deadline, once per arming") {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::chrono::steady_clock::time_point> fired;
  DeadlineTimer timer([&] {
    std::lock_guard<std::mutex> lock(mu);
    fired.push_back(std::chrono::steady_clock::now());
    cv.notify_all();
  });
  auto t0 = std::chrono::steady_clock::now();
  timer.arm(t0 + 300ms);
  timer.arm(t0 + 50ms);   // earlier wins
  timer.arm(t0 + 200ms);  // later than the armed one: ignored
  std::unique_lock<std::mutex> lock(mu);
  REQUIRE(cv.wait_for(lock, 5s, [&] { return !fired.empty(); }));
  CHECK(fired[0] - t0 >= 50ms);
  CHECK(fired[0] - t0 < 280ms);
  // Nothing else was armed: no second firing.
  CHECK_FALSE(cv.wait_for(lock, 400ms, [&] { return fired.size() > 1; }));
}

TEST_CASE("timer: stops promptly with a far deadline armed") {
  std::atomic<int> calls{0};
  auto t0 = std::chrono::steady_clock::now();
  {
    DeadlineTimer timer([&] { ++calls; });
    timer.arm(t0 + 1h);
  }
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  CHECK(calls == 0);
}
