// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic/address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nexar::quic {

uint16_t Address::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

bool Address::operator==(const Address& o) const {
  if (family() != o.family()) return false;
  if (family() == AF_INET) {
    auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    auto* b = reinterpret_cast<const sockaddr_in*>(&o.ss);
    return a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
  }
  if (family() == AF_INET6) {
    auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    auto* b = reinterpret_cast<const sockaddr_in6*>(&o.ss);
    return a->sin6_port == b->sin6_port && std::memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(in6_addr)) == 0;
  }
  return false;
}

std::string Address::to_string() const {
  char buf[INET6_ADDRSTRLEN + 16] = "";
  char ip[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, ip, sizeof(ip));
    std::snprintf(buf, sizeof(buf), "%s:%u", ip, static_cast<unsigned>(port()));
  } else if (family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, ip, sizeof(ip));
    std::snprintf(buf, sizeof(buf), "[%s]:%u", ip, static_cast<unsigned>(port()));
  } else {
    return "(no address)";
  }
  return buf;
}

Status parse_ip(const std::string& ip, uint16_t port, Address* out) {
  Address a;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a.ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.ss);
  if (inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    a.len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    a.len = sizeof(sockaddr_in6);
  } else {
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "'" + ip + "' is not an IPv4 or IPv6 literal");
  }
  *out = a;
  return Status::Ok();
}

Status parse_host_port(const std::string& text, Address* out) {
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Status(NEXAR_ERR_INVALID_ARGUMENT, "address '" + text + "' is not [ipv6]:port");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon)
      return Status(NEXAR_ERR_INVALID_ARGUMENT, "address '" + text + "' is not host:port");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  char* end = nullptr;
  long p = port.empty() ? -1 : std::strtol(port.c_str(), &end, 10);
  if (p <= 0 || p > 65535 || *end != '\0')
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "address '" + text + "' has no valid port (1-65535)");
  return parse_ip(host, static_cast<uint16_t>(p), out);
}

}  // namespace nexar::quic
