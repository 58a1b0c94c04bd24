// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A peer in its own process for the peer-death test: connects to a server, prints
// "connected" once the handshake is done, then idles until killed (60 s at most).
//   quic_peer_helper <credential file> <server host:port> <server rank> <idle s> <keepalive s>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "transport/quic/endpoint.h"

using namespace nexar;
using namespace nexar::quic;

namespace {
class Idle : public Application {
 public:
  void on_connected(Connection&) override {
    std::printf("connected\n");
    std::fflush(stdout);
  }
  Status on_stream_data(Connection&, int64_t, const uint8_t*, size_t, bool) override { return Status::Ok(); }
  size_t next_write(Connection&, int64_t*, ngtcp2_vec*, size_t, bool*) override { return 0; }
  void on_written(Connection&, int64_t, size_t, bool) override {}
  void on_blocked(Connection&, int64_t) override {}
  void on_closed(Connection&, const Status& why) override {
    std::printf("closed %s\n", why.to_string().c_str());
    std::fflush(stdout);
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s cred addr rank idle keepalive\n", argv[0]);
    return 2;
  }
  alarm(60);  // never outlive a broken test
  std::shared_ptr<tls::Context> tls;
  Status st = tls::Context::load(argv[1], &tls);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  EndpointConfig cfg;
  cfg.tls = tls;
  cfg.idle_timeout_s = std::atof(argv[4]);
  cfg.keepalive_s = std::atof(argv[5]);
  std::unique_ptr<Endpoint> ep;
  Idle app;
  st = Endpoint::create(cfg, &ep);
  if (st.ok()) st = ep->connect(argv[2], "nexar/1", ExpectedPeer{std::atoi(argv[3])}, &app);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  for (;;) pause();
}
