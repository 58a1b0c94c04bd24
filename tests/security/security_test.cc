// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Mutual TLS per job, end to end: while a real job runs, clients without a certificate,
// with another job's certificate, or with rank 2's certificate claiming to be rank 1 try
// to join the mesh and the rendezvous. Each is refused, nothing they send is delivered,
// nothing is delivered to them, and the job finishes unharmed.
#include <unistd.h>

#include <catch.hpp>

#include "security/attacked_job.h"
#include "transport/quic_link/quic_link.h"

using namespace std::chrono_literals;
using namespace nexar;

namespace {

// Counts everything the mesh would deliver to the attacker.
struct RecordingSink : transport::InboundSink {
  std::atomic<int> delivered{0};
  bool on_message(int, const transport::MsgHeader&, const uint8_t*) override { return ++delivered, true; }
  transport::InboundMsg* on_message_begin(int, const transport::MsgHeader&) override { return ++delivered, nullptr; }
  bool on_message_data(transport::InboundMsg*, const uint8_t*, size_t) override { return true; }
  void on_message_abandon(transport::InboundMsg*, const Status&) override {}
  void on_peer_lost(int, const Status&) override {}
  void on_remote_abort(int, uint32_t, const Status&) override { ++delivered; }
};

struct InjectedSend : transport::SendOp {
  int64_t payload = 666;
  void complete(const Status&) override {}
};

// Joins the mesh toward rank 0 as `claimed_rank` with credential ctx; returns how it ended.
Status try_mesh(std::shared_ptr<tls::Context> ctx, const std::string& addr, int claimed_rank, int* delivered) {
  quic::EndpointConfig cfg = quic::endpoint_config_from_params(ctx);
  std::unique_ptr<quic::Endpoint> ep;
  REQUIRE(quic::Endpoint::create(cfg, &ep).ok());
  RecordingSink sink;
  auto link = std::make_unique<quic_link::QuicLink>(claimed_rank, 3, 0, &sink, ep.get());
  InjectedSend inject;
  inject.hdr = {0, 4, sizeof(inject.payload)};
  inject.data = reinterpret_cast<const uint8_t*>(&inject.payload);
  link->send(&inject);  // queued before the handshake: must never reach rank 0's user
  Status st = link->dial(addr);
  if (st.ok()) st = link->wait_ready(std::chrono::steady_clock::now() + 10s);
  if (st.ok()) std::this_thread::sleep_for(500ms);  // give an accepted link time to deliver
  ep.reset();
  *delivered = sink.delivered.load();
  std::printf("attempt as rank %d: %s\n", claimed_rank, st.to_string().c_str());
  return st;
}

}  // namespace

TEST_CASE("clients without the job's credential are refused and the job is unharmed", "[security]") {
  security_test::AttackedJob attacked("nexar-security", {}, {});
  const std::string& dir = attacked.dir;
  const std::string& rdv = attacked.rdv;
  std::shared_ptr<tls::Context> rank2;
  REQUIRE(tls::Context::load(attacked.cred2, &rank2).ok());
  const std::string addr0 = attacked.rank0_address();

  tls::JobCredentialFiles other;
  REQUIRE(tls::create_job_credentials(dir + "/other", "another-job", 3, &other).ok());
  std::shared_ptr<tls::Context> foreign;
  REQUIRE(tls::Context::load(other.rank_files[1], &foreign).ok());

  int delivered = -1;
  {
    INFO("no certificate");
    Status st = try_mesh(rank2->without_own_certificate(), addr0, 1, &delivered);
    CHECK_FALSE(st.ok());
    CHECK(delivered == 0);
  }
  {
    INFO("another job's certificate");
    Status st = try_mesh(foreign, addr0, 1, &delivered);
    CHECK_FALSE(st.ok());
    CHECK(st.code() != NEXAR_ERR_TIMEOUT);  // refused in the handshake, not ignored
    CHECK(delivered == 0);
  }
  {
    INFO("rank 2's certificate claiming rank 1");
    Status st = try_mesh(rank2, addr0, 1, &delivered);
    CHECK_FALSE(st.ok());
    CHECK(delivered == 0);
  }
  {
    INFO("the rendezvous refuses another job's certificate and no certificate");
    for (auto ctx : {foreign, rank2->without_own_certificate()}) {
      quic::EndpointConfig cfg = quic::endpoint_config_from_params(ctx);
      std::unique_ptr<quic::Endpoint> ep;
      REQUIRE(quic::Endpoint::create(cfg, &ep).ok());
      std::unique_ptr<rendezvous::Client> rc;
      Status st = rendezvous::Client::connect(ep.get(), rdv, 10s, &rc);
      CHECK_FALSE(st.ok());
    }
  }
  tls::remove_job_credentials(other);

  attacked.finish();
}
