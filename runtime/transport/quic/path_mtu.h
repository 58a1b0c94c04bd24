// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// How large a UDP datagram to a peer may be without IP fragmentation: the MTU of the
// kernel's route to it (its interface's, or a smaller one the kernel learned for it).
#pragma once

#include <cstddef>

#include "transport/quic/address.h"

namespace nexar::quic {

struct RoutePayload {
  size_t max_udp_payload = 0;  // route MTU less the IP and UDP headers; 0: no route known
  bool loopback = false;       // a loopback-sized route (MTU >= 65535): no hop between
};

// Asks the kernel (a UDP socket connected to peer, IP_MTU / IPV6_MTU); never sends.
RoutePayload route_payload(const Address& peer);

// The UDP payload a connection to a peer sends, and whether ngtcp2's path-MTU discovery
// raises it from 1200 up to that ceiling (a real link: the hops between may have a smaller
// MTU than this host's interface). override_size > 0 (NEXAR_QUIC_PACKET_SIZE) fixes the
// size, still within the route's. Whether the sender paces: on a loopback route no
// queue lies between the two ends but the receiver's socket buffer, which the congestion
// window already bounds, and a pacing slot cost the sender a timer wake-up every few
// packets (docs/quic-performance.md, "Bulk on loopback: no pacing").
struct PacketSizing {
  size_t max_udp_payload = 1200;
  bool discover = false;
  bool paced = true;
};
PacketSizing packet_sizing(const RoutePayload& route, size_t override_size);

}  // namespace nexar::quic
