// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Goodput of one stream between two endpoints in this process over loopback:
//   quic_goodput [bytes (default 1 GiB)] [packet size (default 65000)]
// The payload is a repeated 1 MiB pattern, checked byte for byte on arrival; exit status
// 1 on any mismatch or timeout. Prints "goodput: X Gbit/s".
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "quic_test_util.h"

using namespace nexar;
using namespace nexar::quic;
using namespace nexar::quic::test;

int main(int argc, char** argv) {
  uint64_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ull << 30);
  size_t pkt = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 0;  // 0: the path decides
  try {
    Job job(2);
    auto pattern = random_bytes(1 << 20, 1234);
    EndpointConfig base;
    auto make = [&](std::shared_ptr<tls::Context> tls, bool server) {
      EndpointConfig cfg;
      cfg.tls = std::move(tls);
      cfg.max_udp_payload = pkt;
      if (server) cfg.accept_alpns = {"nexar/1"};
      std::unique_ptr<Endpoint> ep;
      Status st = Endpoint::create(cfg, &ep);
      if (!st.ok()) throw std::runtime_error(st.to_string());
      return ep;
    };
    TestApp receiver, sender;
    receiver.check_pattern(pattern.data(), pattern.size());
    auto server = make(job.rank(1), true);
    server->set_accept_handler([&](Connection&) -> Application* { return &receiver; });
    auto client = make(job.rank(0), false);
    if (!client->connect(server->local_address(), "nexar/1", ExpectedPeer{1}, &sender).ok()) return 1;
    if (!sender.wait([&] { return sender.connected > 0 || sender.closed; }, 10) || sender.connected == 0) {
      std::fprintf(stderr, "no connection: %s\n", sender.close_status.to_string().c_str());
      return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    int64_t sid = sender.send(*client, pattern.data(), bytes, pattern.size());
    if (sid < 0) return 1;
    double limit = 30 + static_cast<double>(bytes) / 1e8;  // >= 0.8 Gbit/s or fail
    bool done = receiver.wait([&] { return receiver.in[sid].fin || receiver.closed; }, limit);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard<std::mutex> l(receiver.mu);
    const auto& in = receiver.in[sid];
    if (!done || !in.fin || in.bytes != bytes || !in.pattern_ok) {
      std::fprintf(stderr, "FAILED: %llu of %llu bytes, fin %d, pattern %s, closed: %s\n",
                   static_cast<unsigned long long>(in.bytes), static_cast<unsigned long long>(bytes), in.fin,
                   in.pattern_ok ? "ok" : "WRONG", receiver.close_status.to_string().c_str());
      return 1;
    }
    std::printf("%llu bytes in %.3f s, packets %zu B: goodput: %.2f Gbit/s\n", static_cast<unsigned long long>(bytes),
                secs, pkt, static_cast<double>(bytes) * 8 / secs / 1e9);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
  return 0;
}
