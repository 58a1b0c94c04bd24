// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Packet sizes from the route: loopback keeps 65000-byte datagrams, a real link's MTU is
// the ceiling for path-MTU discovery, NEXAR_QUIC_PACKET_SIZE fixes a size within it, and
// the endpoint's socket sets DF (no IP fragments). Across namespace hosts with a 1500-byte
// MTU: tests/multihost/path_test.cc.
#include <netinet/in.h>

#include <catch.hpp>

#include "quic_test_util.h"
#include "transport/quic/path_mtu.h"
#include "transport/quic/udp_socket.h"

using namespace nexar;
using namespace nexar::quic;

TEST_CASE("path MTU: loopback routes are loopback-sized, both families", "[quic][pmtu]") {
  Address v4, v6;
  REQUIRE(parse_ip("127.0.0.1", 9, &v4).ok());
  REQUIRE(parse_ip("::1", 9, &v6).ok());
  for (const Address& a : {v4, v6}) {
    RoutePayload r = route_payload(a);
    INFO(a.to_string() << " payload " << r.max_udp_payload);
    CHECK(r.loopback);
    CHECK(r.max_udp_payload >= 65000);
    PacketSizing s = packet_sizing(r, 0);
    CHECK(s.max_udp_payload == 65000);
    CHECK_FALSE(s.discover);
    CHECK_FALSE(s.paced);  // nothing between the two ends to pace for
    CHECK_FALSE(packet_sizing(r, 1452).paced);
  }
}

TEST_CASE("path MTU: a link's MTU is discovery's ceiling; the override stays within it", "[quic][pmtu]") {
  const RoutePayload ether{1472, false};  // 1500-byte IPv4 link
  PacketSizing s = packet_sizing(ether, 0);
  CHECK(s.max_udp_payload == 1472);
  CHECK(s.discover);
  CHECK(s.paced);
  s = packet_sizing(ether, 1300);  // fixed size, no discovery
  CHECK(s.max_udp_payload == 1300);
  CHECK_FALSE(s.discover);
  s = packet_sizing(ether, 9000);  // never above the route: it would not leave (DF)
  CHECK(s.max_udp_payload == 1472);
  s = packet_sizing(RoutePayload{1180, false}, 0);  // below QUIC's minimum: 1200, nothing to discover
  CHECK(s.max_udp_payload == 1200);
  CHECK_FALSE(s.discover);
  CHECK(s.paced);
  s = packet_sizing(RoutePayload{}, 0);  // no route known
  CHECK(s.max_udp_payload == 1200);
  CHECK_FALSE(s.discover);
  CHECK(s.paced);
  s = packet_sizing(RoutePayload{}, 1452);  // no route known, the user's size
  CHECK(s.max_udp_payload == 1452);
  s = packet_sizing(RoutePayload{65508, true}, 65527);
  CHECK(s.max_udp_payload == 65000);
}

TEST_CASE("path MTU: the endpoint's socket never lets the kernel fragment", "[quic][pmtu]") {
  for (const char* ip : {"127.0.0.1", "::1"}) {
    Address bind_to;
    REQUIRE(parse_ip(ip, 0, &bind_to).ok());
    UdpSocket sock;
    REQUIRE(sock.open(bind_to).ok());
    int mode = -1;
    socklen_t len = sizeof(mode);
    const bool v6 = bind_to.family() == AF_INET6;
    REQUIRE(::getsockopt(sock.fd(), v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &mode,
                         &len) == 0);
    CHECK(mode == (v6 ? IPV6_PMTUDISC_PROBE : IP_PMTUDISC_PROBE));
  }
}
