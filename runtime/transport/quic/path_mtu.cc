// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic/path_mtu.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace nexar::quic {
namespace {
constexpr size_t kQuicMin = 1200;         // RFC 9000: every path carries 1200-byte datagrams
constexpr size_t kLoopbackMax = 65000;    // one GSO send's worth (UdpSocket::kMaxGsoBytes)
constexpr size_t kUdpHeader = 8;
}  // namespace

RoutePayload route_payload(const Address& peer) {
  RoutePayload out;
  const int family = peer.family();
  int fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd < 0) return out;
  int mtu = 0;
  socklen_t len = sizeof(mtu);
  bool ok = ::connect(fd, peer.sa(), peer.len) == 0 &&
            (family == AF_INET6 ? ::getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &len)
                                : ::getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len)) == 0;
  ::close(fd);
  const size_t ip_header = family == AF_INET6 ? 40 : 20;
  if (!ok || static_cast<size_t>(mtu) <= ip_header + kUdpHeader) return out;
  out.max_udp_payload = static_cast<size_t>(mtu) - ip_header - kUdpHeader;
  out.loopback = mtu >= 65535;
  return out;
}

PacketSizing packet_sizing(const RoutePayload& route, size_t override_size) {
  PacketSizing s;
  s.paced = !route.loopback;
  // No route known (the connect failed): the size every QUIC path must carry.
  const size_t ceiling = route.max_udp_payload == 0 ? kQuicMin : std::min(route.max_udp_payload, kLoopbackMax);
  if (override_size > 0) {
    s.max_udp_payload = std::max(kQuicMin, std::min(override_size, route.max_udp_payload == 0 ? override_size : ceiling));
    return s;
  }
  s.max_udp_payload = std::max(kQuicMin, ceiling);
  s.discover = !route.loopback && s.max_udp_payload > kQuicMin;
  return s;
}

}  // namespace nexar::quic
