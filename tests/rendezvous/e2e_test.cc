// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Server and clients end to end over real QUIC + TLS + HTTP/3 on 127.0.0.1.
#include <catch.hpp>

#include <atomic>
#include <set>
#include <thread>

#include "rdv_fixture.h"

using namespace nexar;
using namespace nexar::rdvtest;
using Clock = std::chrono::steady_clock;

namespace {
long long ms_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}
#define REQUIRE_OK(expr)                  \
  do {                                    \
    ::nexar::Status st_ = (expr);         \
    INFO(st_.to_string());                \
    REQUIRE(st_.ok());                    \
  } while (0)
}  // namespace

TEST_CASE("e2e: set, get, absent keys, binary and 1 MiB values") {
  RdvFixture rdv;
  auto a = rdv.client(0);
  auto b = rdv.client(1);
  REQUIRE_OK(a->client->set("job/x", "hello", 5s));
  std::string v;
  bool found = false;
  REQUIRE_OK(b->client->get("job/x", &v, &found, 5s));
  CHECK(found);
  CHECK(v == "hello");
  REQUIRE_OK(b->client->get("job/absent", &v, &found, 5s));
  CHECK_FALSE(found);
  std::string bin("\0\x01\xff\n\r", 5);
  REQUIRE_OK(a->client->set("bin", bin, 5s));
  REQUIRE_OK(b->client->get("bin", &v, &found, 5s));
  CHECK(v == bin);
  REQUIRE_OK(a->client->set("empty", "", 5s));
  REQUIRE_OK(b->client->get("empty", &v, &found, 5s));
  CHECK(found);
  CHECK(v.empty());
  std::string big(1u << 20, 'z');
  big[12345] = 'q';
  REQUIRE_OK(a->client->set("big", big, 10s));
  REQUIRE_OK(b->client->get("big", &v, &found, 10s));
  CHECK(v == big);
  // Refused before anything is sent.
  CHECK(a->client->set("big", big + "!", 5s).code() == NEXAR_ERR_INVALID_ARGUMENT);
  Status bad = a->client->set("bad key", "v", 5s);
  CHECK(bad.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(bad.message().find("bad key") != std::string::npos);
  CHECK(a->client->get(std::string(257, 'k'), &v, &found, 5s).code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("e2e: a wait is released by a later set from another client") {
  RdvFixture rdv;
  auto waiter = rdv.client(2);
  auto setter = rdv.client(3);
  std::string got;
  Status wst;
  long long waited = -1;
  std::thread t([&] {
    auto t0 = Clock::now();
    wst = waiter->client->wait("addr/3", &got, 20s);
    waited = ms_since(t0);
  });
  std::this_thread::sleep_for(300ms);
  REQUIRE_OK(setter->client->set("addr/3", "127.0.0.1:4242", 5s));
  t.join();
  INFO(wst.to_string());
  REQUIRE(wst.ok());
  CHECK(got == "127.0.0.1:4242");
  CHECK(waited >= 250);
  CHECK(waited < 5000);
  // A key that is already there answers at once.
  auto t0 = Clock::now();
  REQUIRE_OK(waiter->client->wait("addr/3", &got, 20s));
  CHECK(ms_since(t0) < 2000);
}

TEST_CASE("e2e: a gather is answered once its count of keys is set, or with fewer at its timeout") {
  RdvFixture rdv;
  auto a = rdv.client(0);
  auto b = rdv.client(1);
  REQUIRE_OK(a->client->set("t/addr/0", "zero", 5s));
  rendezvous::Entries got;
  Status gst;
  std::thread waiter([&] { gst = b->client->gather("t/addr/", 3, &got, 20s); });
  std::this_thread::sleep_for(100ms);
  REQUIRE_OK(a->client->set("t/addr/1", "one", 5s));
  REQUIRE_OK(a->client->set("t/addr/2", "two", 5s));
  waiter.join();
  REQUIRE_OK(gst);
  CHECK(got == rendezvous::Entries{{"t/addr/0", "zero"}, {"t/addr/1", "one"}, {"t/addr/2", "two"}});
  const auto t0 = Clock::now();
  REQUIRE_OK(b->client->gather("t/addr/", 4, &got, 300ms));
  CHECK(got.size() == 3);
  CHECK(ms_since(t0) < 10000);
  CHECK(b->client->gather("bad prefix", 1, &got, 1s).code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("e2e: a wait times out with NEXAR_ERR_TIMEOUT and leaves no waiter behind") {
  RdvFixture rdv;  // no status callback: /status is the service's counters
  auto c = rdv.client(0);
  std::string v;
  auto t0 = Clock::now();
  Status st = c->client->wait("never", &v, 400ms);
  long long took = ms_since(t0);
  CHECK(st.code() == NEXAR_ERR_TIMEOUT);
  CHECK(st.message().find("never") != std::string::npos);
  CHECK(st.message().find(rdv.address()) != std::string::npos);
  CHECK(took >= 250);
  CHECK(took < 1500);
  std::string json;
  REQUIRE_OK(c->client->status(&json, 5s));
  CHECK(json.find("\"waiters\":0") != std::string::npos);
  CHECK(json.find("\"clients\":1") != std::string::npos);
  // A zero timeout is an immediate check.
  CHECK(c->client->wait("never", &v, 0ms).code() == NEXAR_ERR_TIMEOUT);
}

TEST_CASE("e2e: many waiters on one key, from several clients and threads") {
  RdvFixture rdv;
  auto c1 = rdv.client(0);
  auto c2 = rdv.client(1);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      std::string v;
      rendezvous::Client* c = (i % 2 ? c1 : c2)->client.get();
      if (c->wait("go", &v, 20s).ok() && v == "now") ++ok;
    });
  }
  std::this_thread::sleep_for(200ms);
  REQUIRE_OK(c1->client->set("go", "now", 5s));
  for (auto& t : threads) t.join();
  CHECK(ok == 8);
}

TEST_CASE("e2e: add from 8 concurrent threads gives consistent totals") {
  RdvFixture rdv;
  constexpr int kThreads = 8, kAdds = 40;
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int r = 0; r < kThreads; ++r) clients.push_back(rdv.client(r));
  auto shared = rdv.client(0);
  std::mutex mu;
  std::set<int64_t> own_results, shared_results;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAdds; ++i) {
        int64_t r1 = 0, r2 = 0;
        // Own connection per thread, and one connection shared by all threads.
        if (!clients[static_cast<size_t>(t)]->client->add("ctr/own", 1, &r1, 10s).ok()) ++failures;
        if (!shared->client->add("ctr/shared", 3, &r2, 10s).ok()) ++failures;
        std::lock_guard<std::mutex> lock(mu);
        own_results.insert(r1);
        shared_results.insert(r2);
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(failures == 0);
  // Every add saw a distinct intermediate total: no lost or doubled update.
  CHECK(own_results.size() == kThreads * kAdds);
  CHECK(*own_results.rbegin() == kThreads * kAdds);
  CHECK(shared_results.size() == kThreads * kAdds);
  CHECK(*shared_results.rbegin() == 3 * kThreads * kAdds);
  int64_t r = 0;
  REQUIRE_OK(shared->client->add("ctr/own", -5, &r, 5s));
  CHECK(r == kThreads * kAdds - 5);
  std::string v;
  bool found = false;
  REQUIRE_OK(shared->client->get("ctr/shared", &v, &found, 5s));
  CHECK(v == std::to_string(3 * kThreads * kAdds));
  // The server's own validation: add to a non-number, and overflow.
  REQUIRE_OK(shared->client->set("text", "abc", 5s));
  Status st = shared->client->add("text", 1, &r, 5s);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("not a decimal integer") != std::string::npos);
  REQUIRE_OK(shared->client->add("huge", INT64_MAX, &r, 5s));
  CHECK(shared->client->add("huge", 1, &r, 5s).code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("e2e: status returns the launcher's JSON") {
  std::atomic<int> calls{0};
  RdvFixture rdv(2, [&] {
    ++calls;
    return std::string("{\"job\":\"rdvtest\",\"ranks\":2,\"state\":\"running\"}");
  });
  auto c = rdv.client(1);
  std::string json;
  REQUIRE_OK(c->client->status(&json, 5s));
  CHECK(json == "{\"job\":\"rdvtest\",\"ranks\":2,\"state\":\"running\"}");
  CHECK(calls == 1);
}

TEST_CASE("e2e: more requests than the stream limit, sequential and concurrent") {
  RdvFixture rdv;
  auto c = rdv.client(0);
  // max_streams is 1024 per kind: streams must be recycled as they close.
  for (int i = 0; i < 1500; ++i) {
    Status st = c->client->set("seq", std::to_string(i), 5s);
    if (!st.ok()) FAIL("request " << i << ": " << st.to_string());
  }
  std::string v;
  bool found = false;
  REQUIRE_OK(c->client->get("seq", &v, &found, 5s));
  CHECK(v == "1499");
}

TEST_CASE("e2e: a rank that is not the launcher is refused as rendezvous (NEXAR_ERR_AUTH)") {
  RdvFixture rdv;
  // A server endpoint holding rank 1's credential pretends to be the rendezvous.
  auto impostor_ep = rdv.endpoint(rdv.files().rank_files[1], {"h3"});
  std::unique_ptr<rendezvous::Server> impostor;
  REQUIRE_OK(rendezvous::Server::start(impostor_ep.get(), nullptr, &impostor));
  auto ep = rdv.endpoint(rdv.files().rank_files[0]);
  std::unique_ptr<rendezvous::Client> c;
  Status st = rendezvous::Client::connect(ep.get(), impostor_ep->local_address(), 10s, &c);
  INFO(st.to_string());
  CHECK(st.code() == NEXAR_ERR_AUTH);
  CHECK(c == nullptr);
}

TEST_CASE("e2e: connecting to nothing times out; connection loss fails pending and later calls") {
  RdvFixture rdv;
  {
    auto ep = rdv.endpoint(rdv.files().rank_files[0]);
    std::unique_ptr<rendezvous::Client> c;
    // A port with nothing behind it (the server's own port + nothing: use a fresh socket's).
    auto idle = rdv.endpoint(rdv.files().rank_files[1]);
    std::string nowhere = idle->local_address();
    idle.reset();
    auto t0 = Clock::now();
    Status st = rendezvous::Client::connect(ep.get(), nowhere, 500ms, &c);
    INFO(st.to_string());
    CHECK((st.code() == NEXAR_ERR_TIMEOUT || st.code() == NEXAR_ERR_PEER_LOST));
    CHECK(ms_since(t0) < 3000);
  }
  auto c = rdv.client(0);
  std::string v;
  Status pending;
  std::thread t([&] { pending = c->client->wait("forever", &v, 20s); });
  std::this_thread::sleep_for(200ms);
  auto t0 = Clock::now();
  rdv.stop_server();
  t.join();
  INFO(pending.to_string());
  CHECK(pending.code() == NEXAR_ERR_PEER_LOST);
  CHECK(pending.message().find(rdv.address()) != std::string::npos);
  CHECK(ms_since(t0) < 5000);
  bool found = false;
  Status later = c->client->get("k", &v, &found, 5s);
  CHECK(later.code() == NEXAR_ERR_PEER_LOST);
  CHECK(later.message().find(rdv.address()) != std::string::npos);
}

TEST_CASE("e2e: the endpoint may be destroyed before the server (nexrun's order)") {
  RdvFixture rdv;
  auto ep = rdv.endpoint(rdv.files().launcher_file, {"h3"});
  std::unique_ptr<rendezvous::Server> server;
  REQUIRE_OK(rendezvous::Server::start(ep.get(), nullptr, &server));
  auto cep = rdv.endpoint(rdv.files().rank_files[0]);
  std::unique_ptr<rendezvous::Client> c;
  REQUIRE_OK(rendezvous::Client::connect(cep.get(), ep->local_address(), 10s, &c));
  // An outstanding wait keeps the server's deadline timer armed across the teardown.
  std::string v;
  Status pending;
  std::thread t([&] { pending = c->wait("k", &v, 1500ms); });
  std::this_thread::sleep_for(200ms);
  ep.reset();
  std::this_thread::sleep_for(50ms);
  server.reset();
  t.join();
  INFO(pending.to_string());
  CHECK(pending.code() == NEXAR_ERR_PEER_LOST);
  c.reset();
}

TEST_CASE("e2e: a slow answer times out locally, and the connection stays usable") {
  // The status callback runs on the server's progress thread: sleeping there holds every
  // answer back, so the client's own deadline fires first and cancels the stream.
  std::atomic<bool> slow{true};
  RdvFixture rdv(2, [&] {
    if (slow) std::this_thread::sleep_for(600ms);
    return std::string("{}");
  });
  auto c = rdv.client(0);
  std::string json;
  auto t0 = Clock::now();
  Status st = c->client->status(&json, 150ms);
  INFO(st.to_string());
  CHECK(st.code() == NEXAR_ERR_TIMEOUT);
  CHECK(st.message().find("no answer within 150 ms") != std::string::npos);
  CHECK(ms_since(t0) < 550);
  slow = false;
  REQUIRE_OK(c->client->set("after", "ok", 5s));
  REQUIRE_OK(c->client->status(&json, 5s));
  CHECK(json == "{}");
}

TEST_CASE("e2e: connect rejects malformed addresses and arguments") {
  RdvFixture rdv(1);
  auto ep = rdv.endpoint(rdv.files().rank_files[0]);
  std::unique_ptr<rendezvous::Client> c;
  for (const char* bad : {"", "localhost:1", "127.0.0.1", "127.0.0.1:99999", "[::1]:80"}) {
    INFO(bad);
    Status st = rendezvous::Client::connect(ep.get(), bad, 1s, &c);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(c == nullptr);
  }
  CHECK(rendezvous::Client::connect(nullptr, rdv.address(), 1s, &c).code() == NEXAR_ERR_INVALID_ARGUMENT);
}
