// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine::iprobe / Engine::probe: messages already here and messages whose header arrived
// are seen without being received, with the filters, the timeout and an abort.
#include <catch.hpp>
#include <cstring>
#include <thread>

#include "p2p/engine_test_util.h"

using namespace nexar;
using namespace nexar::p2p::test;
using namespace nexar::shm::test;

TEST_CASE("iprobe sees a stored message without receiving it; the next receive gets it", "[p2p]") {
  ShmPair pair;
  REQUIRE(pair.status().ok());
  p2p::Engine& rx = pair.engine(1);
  bool found = true;
  p2p::Engine::Probed p;
  REQUIRE(rx.iprobe(kCtx, 0, NEXAR_ANY_TAG, &found, &p).ok());
  CHECK_FALSE(found);
  auto a = bytes_of(40, 1), b = bytes_of(3000, 2);
  REQUIRE(pair.send(0, 5, a.data(), a.size()).ok());
  REQUIRE(pair.send(0, 6, b.data(), b.size()).ok());
  REQUIRE(rx.probe(kCtx, NEXAR_ANY_SOURCE, 6, in_seconds(10), &p).ok());
  CHECK(p.src == 0);
  CHECK(p.tag == 6);
  CHECK(p.bytes == 3000);
  // Probing again finds the same message; ANY_TAG finds the older one.
  REQUIRE(rx.iprobe(kCtx, NEXAR_ANY_SOURCE, 6, &found, &p).ok());
  CHECK((found && p.bytes == 3000));
  REQUIRE(rx.iprobe(kCtx, 0, NEXAR_ANY_TAG, &found, &p).ok());
  CHECK((found && p.tag == 5 && p.bytes == 40));
  REQUIRE(rx.iprobe(kCtx, 0, 7, &found, &p).ok());
  CHECK_FALSE(found);
  std::vector<uint8_t> got(p.bytes + 8);
  size_t n = 0;
  REQUIRE(pair.recv(1, 0, NEXAR_ANY_TAG, got.data(), got.size(), &n).ok());
  CHECK(n == 40);
  CHECK(std::memcmp(got.data(), a.data(), 40) == 0);
  REQUIRE(rx.iprobe(kCtx, 0, NEXAR_ANY_TAG, &found, &p).ok());
  CHECK((found && p.tag == 6));
}

TEST_CASE("probe sees a large message whose header arrived before its payload moved", "[p2p]") {
  for (bool cma : {true, false}) {
    INFO("CMA " << cma);
    ShmPair pair(moving_by(cma));
    REQUIRE(pair.status().ok());
    auto big = bytes_of((4u << 20) + 5, 3);
    p2p::RequestPtr s;
    REQUIRE(pair.engine(0).isend(kCtx, 1, 9, big.data(), big.size(), 0, &s).ok());
    p2p::Engine::Probed p;
    REQUIRE(pair.engine(1).probe(kCtx, NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, in_seconds(10), &p).ok());
    CHECK(p.bytes == big.size());
    CHECK(p.tag == 9);
    CHECK_FALSE(s->done());  // the payload waits for a receive (rendezvous)
    std::vector<uint8_t> got(p.bytes);
    Status r;
    std::thread t([&] { r = pair.recv(1, p.src, p.tag, got.data(), got.size()); });
    // The sender needs its engine's progress for the acknowledgement.
    CHECK(pair.engine(0).waiter().wait([&] { return s->done(); }, in_seconds(20)));
    t.join();
    CHECK(r.ok());
    CHECK(s->result().ok());
    CHECK(got == big);
  }
}

TEST_CASE("probe gives up at its deadline and fails when the context is aborted", "[p2p]") {
  ShmPair pair;
  REQUIRE(pair.status().ok());
  p2p::Engine::Probed p;
  auto t0 = p2p::Clock::now();
  Status st = pair.engine(1).probe(kCtx, 0, 1, in_seconds(0.3), &p);
  double s = std::chrono::duration<double>(p2p::Clock::now() - t0).count();
  CHECK(st.code() == NEXAR_ERR_TIMEOUT);
  CHECK(s >= 0.25);
  CHECK(s < 10);
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    pair.engine(1).abort_context(kCtx, Status(NEXAR_ERR_REVOKED, "revoked by a test"), false);
  });
  t0 = p2p::Clock::now();
  st = pair.engine(1).probe(kCtx, NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, in_seconds(20), &p);
  s = std::chrono::duration<double>(p2p::Clock::now() - t0).count();
  aborter.join();
  CHECK(st.code() == NEXAR_ERR_REVOKED);
  CHECK(s < 10);
  bool found = true;
  CHECK(pair.engine(1).iprobe(kCtx, 0, 1, &found, &p).code() == NEXAR_ERR_REVOKED);
}
