// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rendezvous on loopback for tests: fresh job credentials in a temp dir, a server
// endpoint with the launcher's credential serving rendezvous::Server, and clients that
// connect through endpoints of their own with rank credentials.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"
#include "transport/tls/credentials.h"

namespace nexar::rdvtest {

using namespace std::chrono_literals;

// A client and the endpoint it lives on; the client goes first when destroyed.
struct TestClient {
  std::unique_ptr<quic::Endpoint> endpoint;
  std::unique_ptr<rendezvous::Client> client;
  ~TestClient() { client.reset(); }
};

class RdvFixture {
 public:
  // nranks rank credentials; status_json as given to Server::start (may be null).
  explicit RdvFixture(int nranks = 8, std::function<std::string()> status_json = nullptr);
  ~RdvFixture();

  // Connects a client with rank r's credential; REQUIREs success.
  std::unique_ptr<TestClient> client(int rank);
  // An endpoint with the given credential file (client side only).
  std::unique_ptr<quic::Endpoint> endpoint(const std::string& credential_file,
                                           std::vector<std::string> accept_alpns = {});

  const tls::JobCredentialFiles& files() const { return files_; }
  const std::string& address() const { return address_; }
  uint16_t port() const { return port_; }
  // Stops the server and closes its endpoint (server first, as documented).
  void stop_server();

 private:
  std::string parent_;
  tls::JobCredentialFiles files_;
  std::unique_ptr<quic::Endpoint> server_endpoint_;
  std::unique_ptr<rendezvous::Server> server_;
  std::string address_;
  uint16_t port_ = 0;
};

}  // namespace nexar::rdvtest
