// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_QUIC_CC: each name forces its controller, an unknown name is refused by the
// endpoint with the value in the error, and data cross BBR, BBRv2 and Reno connections
// exactly (Cubic: every other QUIC test); a loopback connection is not paced.
#include <catch.hpp>

#include "quic_test_util.h"
#include "transport/quic/congestion.h"
#include "transport/quic/endpoint_impl.h"

using namespace nexar;
using namespace nexar::quic;

TEST_CASE("congestion control: each name forces its controller", "[quic][cc]") {
  CHECK(congestion_algo("cubic") == NGTCP2_CC_ALGO_CUBIC);
  CHECK(congestion_algo("bbr") == NGTCP2_CC_ALGO_BBR);
  CHECK(congestion_algo("bbr2") == NGTCP2_CC_ALGO_BBR2);
  CHECK(congestion_algo("reno") == NGTCP2_CC_ALGO_RENO);
  CHECK(EndpointConfig{}.congestion == "cubic");
  for (const char* n : {"cubic", "bbr", "bbr2", "reno"}) {
    CHECK(check_congestion_name(n).ok());
    CHECK(std::string(congestion_algo_name(congestion_algo(n))) == n);
  }
}

TEST_CASE("congestion control: an unknown name is an error naming it", "[quic][cc]") {
  for (const char* bad : {"", "auto", "CUBIC", "bbr3", "cubic "}) {
    Status s = check_congestion_name(bad);
    INFO("'" << bad << "': " << s.to_string());
    CHECK(s.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(s.message().find(std::string("NEXAR_QUIC_CC=") + bad + " is not") != std::string::npos);
  }
  test::Job job(1);
  EndpointConfig cfg;
  cfg.tls = job.rank(0);
  cfg.congestion = "vegas";
  std::unique_ptr<Endpoint> ep;
  Status s = Endpoint::create(cfg, &ep);
  CHECK(s.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(s.message().find("NEXAR_QUIC_CC=vegas") != std::string::npos);
  CHECK(ep == nullptr);
}

namespace {

// 16 MiB from a client to a server endpoint over loopback with controller cc: every byte
// arrives in order (checksum), all of it is acknowledged. Returns the client's writes that
// left data for a pacing slot.
uint64_t send_16mib(const char* cc) {
  test::Job job(2);
  auto data = test::random_bytes(16u << 20, 7);
  const uint64_t want = test::fnv1a(test::kFnvBasis, data.data(), data.size());
  test::EndpointOptions opt;
  opt.congestion = cc;
  test::Server server(job.rank(1), opt);
  opt.server = false;
  std::unique_ptr<Endpoint> client = test::make_endpoint(job.rank(0), opt);
  test::TestApp app;
  REQUIRE(client->connect(server.ep->local_address(), "nexar/1", ExpectedPeer{1}, &app).ok());
  REQUIRE(app.wait([&] { return app.connected > 0 || app.closed; }, 10));
  int64_t sid = app.send(*client, data.data(), data.size());
  REQUIRE(sid >= 0);
  test::TestApp* s = server.app(0);
  REQUIRE(s != nullptr);
  REQUIRE(s->wait([&] { return s->in[sid].fin; }, 30));
  {
    std::lock_guard<std::mutex> l(s->mu);
    CHECK(s->in[sid].bytes == data.size());
    CHECK(s->in[sid].hash == want);
  }
  REQUIRE(app.wait([&] { return app.out[sid].acked >= data.size(); }, 10));
  // Endpoint::create makes an EndpointImpl; its counts are not part of the interface.
  const uint64_t budget_ended = static_cast<EndpointImpl*>(client.get())->budget_ended_writes();
  client.reset();  // before app, whose callbacks it calls
  return budget_ended;
}

}  // namespace

TEST_CASE("congestion control: 16 MiB over each controller, checksum and acks exact", "[quic][cc]") {
  for (const char* cc : {"bbr", "bbr2", "reno"}) {
    INFO("NEXAR_QUIC_CC=" << cc);
    send_16mib(cc);
  }
}

TEST_CASE("a loopback connection writes unpaced, up to its congestion window", "[quic][cc]") {
  // Paced, each write stopped after 4 packets of 65000 bytes and left the rest for a pacing
  // slot (~64 times per 16 MiB); on loopback none does (path_mtu.h, PacketSizing::paced).
  CHECK(send_16mib("cubic") == 0);
}
