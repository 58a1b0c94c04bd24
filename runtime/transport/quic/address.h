// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Socket addresses: IPv4/IPv6 literals in and out.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

#include "core/status.h"

namespace nexar::quic {

struct Address {
  sockaddr_storage ss{};
  socklen_t len = 0;
  const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&ss); }
  sockaddr* sa() { return reinterpret_cast<sockaddr*>(&ss); }
  int family() const { return ss.ss_family; }
  uint16_t port() const;
  bool operator==(const Address& o) const;
  // "127.0.0.1:40123" / "[::1]:40123"
  std::string to_string() const;
};

// An IP literal (no name lookup) and a port.
Status parse_ip(const std::string& ip, uint16_t port, Address* out);
// "host:port" or "[v6]:port", IP literals only.
Status parse_host_port(const std::string& text, Address* out);

}  // namespace nexar::quic
