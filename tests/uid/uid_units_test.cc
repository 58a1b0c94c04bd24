// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The unique id's bytes and the job secret it carries, in-process.
#include <catch.hpp>

#include <cstdlib>
#include <cstring>

#include "bootstrap/unique_id.h"
#include "bootstrap/unique_id_job.h"
#include "bootstrap/world.h"
#include "transport/tls/tls_context.h"

using nexar::Status;
using namespace nexar::bootstrap;

namespace {

UniqueId sample() {
  UniqueId id;
  id.job_id = "uid-0123456789abcdef";
  id.rendezvous = "127.0.0.1:4242";
  id.ca_key_der = std::string(121, '\x5a');
  return id;
}

}  // namespace

TEST_CASE("a unique id decodes to what was encoded", "[uid]") {
  unsigned char bytes[kUniqueIdBytes];
  REQUIRE(encode_unique_id(sample(), bytes).ok());
  UniqueId back;
  REQUIRE(decode_unique_id(bytes, &back).ok());
  CHECK(back.job_id == sample().job_id);
  CHECK(back.rendezvous == sample().rendezvous);
  CHECK(back.ca_key_der == sample().ca_key_der);
}

TEST_CASE("a changed byte anywhere in a unique id is named", "[uid]") {
  unsigned char good[kUniqueIdBytes];
  REQUIRE(encode_unique_id(sample(), good).ok());
  for (size_t at : {size_t{0}, size_t{7}, size_t{8}, size_t{39}, size_t{41}, size_t{110}, size_t{200}, size_t{511}}) {
    unsigned char bytes[kUniqueIdBytes];
    std::memcpy(bytes, good, sizeof(bytes));
    bytes[at] ^= 0x40;
    UniqueId out;
    Status st = decode_unique_id(bytes, &out);
    INFO("byte " << at << ": " << st.to_string());
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    const char* want = at < 7 ? "is not one" : at == 7 ? "format version" : "is garbled";
    CHECK(st.message().find(want) != std::string::npos);
  }
}

TEST_CASE("fields that do not fit a unique id are refused", "[uid]") {
  unsigned char bytes[kUniqueIdBytes];
  UniqueId id = sample();
  id.rendezvous = std::string(65, '1');
  CHECK(encode_unique_id(id, bytes).code() == NEXAR_ERR_INVALID_ARGUMENT);
  id = sample();
  id.ca_key_der = std::string(400, 'k');
  CHECK(encode_unique_id(id, bytes).code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("rank and size out of range are named before anything is contacted", "[uid]") {
  LaunchInfo info;
  CHECK(unique_id_launch(sample(), 2, 2, &info).message().find("rank 2 is outside [0, 2)") != std::string::npos);
  CHECK(unique_id_launch(sample(), -1, 2, &info).code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(unique_id_launch(sample(), 0, 0, &info).message().find("size 0") != std::string::npos);
  // A key that is not one.
  CHECK(unique_id_launch(sample(), 0, 2, &info).code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a process holding another job's secret is refused by the rendezvous", "[uid]") {
  setenv("NEXAR_ADDR", "127.0.0.1", 1);
  setenv("NEXAR_CONNECT_TIMEOUT", "10", 1);
  UniqueId a, b;
  REQUIRE(make_unique_id(&a).ok());
  REQUIRE(make_unique_id(&b).ok());
  UniqueId forged = a;
  forged.ca_key_der = b.ca_key_der;  // a's rendezvous and job, b's secret
  LaunchInfo info;
  REQUIRE(unique_id_launch(forged, 1, 2, &info).ok());
  std::shared_ptr<World> w;
  Status st = World::create(info, &w);
  INFO(st.to_string());
  CHECK(st.code() == NEXAR_ERR_AUTH);
}

namespace {

// Whether a process holding id reaches its rendezvous (as rank 1 of 2).
Status reach(const UniqueId& id) {
  LaunchInfo li;
  NX_RETURN_IF_ERROR(unique_id_launch(id, 1, 2, &li));
  li.rendezvous_host.reset();
  std::shared_ptr<nexar::tls::Context> tls;
  NX_RETURN_IF_ERROR(nexar::tls::Context::from_pem(li.credential_pem, "test credential", &tls));
  nexar::quic::EndpointConfig cfg = nexar::quic::endpoint_config_from_params(tls);
  cfg.bind_address = "127.0.0.1";
  std::unique_ptr<nexar::quic::Endpoint> ep;
  NX_RETURN_IF_ERROR(nexar::quic::Endpoint::create(cfg, &ep));
  std::unique_ptr<nexar::rendezvous::Client> client;
  Status st = nexar::rendezvous::Client::connect(ep.get(), id.rendezvous, std::chrono::seconds(3), &client);
  client.reset();
  return st;
}

}  // namespace

TEST_CASE("the id's rendezvous serves until the world its maker joined is destroyed", "[uid]") {
  setenv("NEXAR_ADDR", "127.0.0.1", 1);
  UniqueId id;
  REQUIRE(make_unique_id(&id).ok());
  CHECK(reach(id).ok());
  LaunchInfo li;
  REQUIRE(unique_id_launch(id, 0, 1, &li).ok());
  std::shared_ptr<World> w;
  REQUIRE(World::create(li, &w).ok());
  unique_id_world_formed(id.job_id);
  li = LaunchInfo{};
  CHECK(reach(id).ok());  // the world holds it now
  w.reset();
  Status gone = reach(id);
  INFO(gone.to_string());
  CHECK_FALSE(gone.ok());
}
