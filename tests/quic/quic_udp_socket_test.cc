// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// UdpSocket::readable(), which waiting threads ask at every poll: it sees a queued datagram
// and a queued ICMP error, consumes neither, and says no once both are taken.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch.hpp>
#include <chrono>
#include <thread>

#include "transport/quic/address.h"
#include "transport/quic/udp_socket.h"

using namespace nexar;
using namespace nexar::quic;

namespace {
// readable() becomes true within 2 s (loopback delivers at once; the bound keeps a
// failure from hanging).
bool becomes_readable(const UdpSocket& s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!s.readable()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}
}  // namespace

TEST_CASE("udp socket: readable() sees a datagram without taking it", "[quic][udp]") {
  for (const char* ip : {"127.0.0.1", "::1"}) {
    INFO(ip);
    Address any;
    REQUIRE(parse_ip(ip, 0, &any).ok());
    UdpSocket a, b;
    REQUIRE(a.open(any).ok());
    REQUIRE(b.open(any).ok());
    CHECK_FALSE(b.readable());
    const uint8_t msg[4] = {1, 2, 3, 4};
    REQUIRE(a.send(b.local(), msg, sizeof(msg), 1200) == 0);
    REQUIRE(becomes_readable(b));
    CHECK(b.readable());  // asking again still finds it: nothing was consumed
    size_t got = 0;
    Address from;
    CHECK(b.receive([&](const Address& f, uint8_t* data, size_t len) {
      from = f;
      got = len;
      CHECK(data[3] == 4);
    }) == 1);
    CHECK(got == sizeof(msg));
    CHECK(from == a.local());
    CHECK_FALSE(b.readable());
  }
}

TEST_CASE("udp socket: readable() sees an ICMP error until it is drained", "[quic][udp]") {
  Address any;
  REQUIRE(parse_ip("127.0.0.1", 0, &any).ok());
  UdpSocket a;
  REQUIRE(a.open(any).ok());
  Address gone;
  {
    UdpSocket closed;  // a port nobody listens on once this closes
    REQUIRE(closed.open(any).ok());
    gone = closed.local();
  }
  const uint8_t msg[4] = {0};
  REQUIRE(a.send(gone, msg, sizeof(msg), 1200) == 0);
  REQUIRE(becomes_readable(a));  // port unreachable, in the error queue
  int errors = 0;
  a.drain_errors([&](const Address& dest, int err) {
    CHECK(dest == gone);
    CHECK(err == ECONNREFUSED);
    ++errors;
  });
  CHECK(errors == 1);
  CHECK_FALSE(a.readable());  // draining the queue cleared the socket's error too
}
