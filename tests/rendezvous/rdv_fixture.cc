// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rdv_fixture.h"

#include <unistd.h>

#include <catch.hpp>
#include <cstdlib>

#include "transport/tls/tls_context.h"

namespace nexar::rdvtest {

RdvFixture::RdvFixture(int nranks, std::function<std::string()> status_json) {
  char tmpl[] = "/tmp/nexar-rdv-test-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  parent_ = tmpl;
  Status st = tls::create_job_credentials(parent_ + "/creds", "rdvtest", nranks, &files_);
  INFO(st.to_string());
  REQUIRE(st.ok());
  server_endpoint_ = endpoint(files_.launcher_file, {"h3"});
  st = rendezvous::Server::start(server_endpoint_.get(), std::move(status_json), &server_);
  INFO(st.to_string());
  REQUIRE(st.ok());
  address_ = server_endpoint_->local_address();
  port_ = server_endpoint_->local_port();
}

RdvFixture::~RdvFixture() {
  stop_server();
  tls::remove_job_credentials(files_);
  ::rmdir(parent_.c_str());
}

void RdvFixture::stop_server() {
  server_.reset();
  server_endpoint_.reset();
}

std::unique_ptr<quic::Endpoint> RdvFixture::endpoint(const std::string& credential_file,
                                                     std::vector<std::string> accept_alpns) {
  std::shared_ptr<tls::Context> tls;
  Status st = tls::Context::load(credential_file, &tls);
  INFO(st.to_string());
  REQUIRE(st.ok());
  quic::EndpointConfig cfg;
  cfg.tls = tls;
  cfg.bind_address = "127.0.0.1";
  cfg.accept_alpns = std::move(accept_alpns);
  std::unique_ptr<quic::Endpoint> ep;
  st = quic::Endpoint::create(cfg, &ep);
  INFO(st.to_string());
  REQUIRE(st.ok());
  return ep;
}

std::unique_ptr<TestClient> RdvFixture::client(int rank) {
  auto c = std::make_unique<TestClient>();
  c->endpoint = endpoint(files_.rank_files.at(static_cast<size_t>(rank)));
  Status st = rendezvous::Client::connect(c->endpoint.get(), address_, 10s, &c->client);
  INFO(st.to_string());
  REQUIRE(st.ok());
  return c;
}

}  // namespace nexar::rdvtest
