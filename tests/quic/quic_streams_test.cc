// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Stream payloads: one 64 MiB stream with a checksum, 100 concurrent streams.
#include <catch.hpp>

#include "quic_test_util.h"

using namespace nexar;
using namespace nexar::quic;
using namespace nexar::quic::test;

namespace {

struct Pair {
  explicit Pair(const Job& job) : server(job.rank(1)) {
    EndpointOptions opt;
    opt.server = false;
    client = make_endpoint(job.rank(0), opt);
    REQUIRE(client->connect(server.ep->local_address(), "nexar/1", ExpectedPeer{1}, &app).ok());
    REQUIRE(app.wait([&] { return app.connected > 0 || app.closed; }, 10));
    REQUIRE(app.connected == 1);
  }
  ~Pair() { client.reset(); }
  Server server;
  TestApp app;
  std::unique_ptr<Endpoint> client;
};

}  // namespace

TEST_CASE("streams: 64 MiB on one stream, checksum and acks exact", "[quic]") {
  Job job(2);
  Pair p(job);
  auto data = random_bytes(64u << 20, 42);
  const uint64_t want = fnv1a(kFnvBasis, data.data(), data.size());
  int64_t sid = p.app.send(*p.client, data.data(), data.size());
  REQUIRE(sid >= 0);
  REQUIRE(p.server.accepted() == 1);
  TestApp* s = p.server.app(0);
  REQUIRE(s->wait([&] { return s->in[sid].fin; }, 60));
  {
    std::lock_guard<std::mutex> l(s->mu);
    CHECK(s->in[sid].bytes == data.size());
    CHECK(s->in[sid].hash == want);
  }
  // Every byte is acknowledged exactly once.
  REQUIRE(p.app.wait([&] { return p.app.out[sid].acked >= data.size(); }, 10));
  std::lock_guard<std::mutex> l(p.app.mu);
  CHECK(p.app.out[sid].acked == data.size());
  CHECK(p.app.out[sid].written == data.size());
  CHECK(p.app.out[sid].fin_sent);
}

TEST_CASE("streams: 100 concurrent streams", "[quic]") {
  Job job(2);
  Pair p(job);
  constexpr int kStreams = 100;
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<int64_t> sids;
  for (int i = 0; i < kStreams; ++i) bufs.push_back(random_bytes(static_cast<size_t>(i) * 7919 + 1, static_cast<uint64_t>(i)));
  // Open them all before any finishes: the test app interleaves them in next_write.
  for (int i = 0; i < kStreams; ++i) {
    int64_t sid = p.app.send(*p.client, bufs[static_cast<size_t>(i)].data(), bufs[static_cast<size_t>(i)].size());
    REQUIRE(sid >= 0);
    sids.push_back(sid);
  }
  REQUIRE(p.server.accepted() == 1);
  TestApp* s = p.server.app(0);
  REQUIRE(s->wait(
      [&] {
        for (int64_t sid : sids)
          if (!s->in[sid].fin) return false;
        return true;
      },
      60));
  std::lock_guard<std::mutex> l(s->mu);
  for (int i = 0; i < kStreams; ++i) {
    const auto& b = bufs[static_cast<size_t>(i)];
    CHECK(s->in[sids[static_cast<size_t>(i)]].bytes == b.size());
    CHECK(s->in[sids[static_cast<size_t>(i)]].hash == fnv1a(kFnvBasis, b.data(), b.size()));
  }
}

TEST_CASE("streams: more streams than the peer's limit, opened as it extends", "[quic]") {
  // 1500 sequential tiny streams > max_streams (1024): only works if stream credit is
  // returned as streams close.
  Job job(2);
  Pair p(job);
  REQUIRE(p.server.accepted() == 1);
  TestApp* s = p.server.app(0);
  {
    std::lock_guard<std::mutex> l(s->mu);
    s->reply_fin = true;
  }
  uint8_t byte = 0x5a;
  for (int i = 0; i < 1500; ++i) {
    int64_t sid = p.app.send(*p.client, &byte, 1);
    REQUIRE(sid >= 0);
    REQUIRE(s->wait([&] { return s->in[sid].fin; }, 10));
    REQUIRE(p.app.wait([&] { return p.app.in[sid].fin; }, 10));  // the server's FIN back
  }
  SUCCEED();
}
