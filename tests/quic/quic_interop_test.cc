// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Interoperability with Debian's stock HTTP/3 client (ngtcp2-client's gtlsclient): given
// a job credential file as --cert and --key, it passes our server's in-handshake client
// verification, and the server learns its identity from the certificate.
#include <unistd.h>

#include <catch.hpp>
#include <cstdlib>

#include "quic_test_util.h"

using namespace nexar;
using namespace nexar::quic;
using namespace nexar::quic::test;

namespace {
// Closes each connection as soon as it is accepted, so the client exits.
class Bye : public TestApp {
 public:
  void on_connected(Connection& conn) override {
    TestApp::on_connected(conn);
    conn.close(0, "bye");
  }
};
}  // namespace

TEST_CASE("interop: gtlsclient with a credential file is verified and identified", "[quic][interop]") {
  if (::access("/usr/bin/gtlsclient", X_OK) != 0) {
    WARN("gtlsclient not installed (Debian package ngtcp2-client): skipped");
    return;
  }
  Job job(2);
  EndpointConfig cfg;
  cfg.tls = job.launcher();
  cfg.accept_alpns = {"h3"};
  std::unique_ptr<Endpoint> ep;
  REQUIRE(Endpoint::create(cfg, &ep).ok());
  Bye app;
  ep->set_accept_handler([&](Connection&) -> Application* { return &app; });
  std::string port = std::to_string(ep->local_port());
  const std::string& cred = job.files().rank_files[1];
  std::string cmd = "timeout 15 gtlsclient -q --timeout=3s --handshake-timeout=5s --cert=" + cred + " --key=" + cred +
                    " 127.0.0.1 " + port + " https://127.0.0.1:" + port + "/ > /dev/null 2>&1";
  int rc = std::system(cmd.c_str());
  INFO("gtlsclient exit status " << rc);
  REQUIRE(app.wait([&] { return app.connected > 0; }, 5));
  std::lock_guard<std::mutex> l(app.mu);
  CHECK(app.peer.rank == 1);
  CHECK(app.peer.job_id == "job-test");
  CHECK(app.alpn == "h3");
}
