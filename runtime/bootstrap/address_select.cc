// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/address_select.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/params.h"

namespace nexar::bootstrap {
namespace {

// Raw address bytes of an IP literal (4 or 16), or 0 when it is none.
size_t ip_bytes(const std::string& ip, unsigned char out[16]) {
  if (inet_pton(AF_INET, ip.c_str(), out) == 1) return 4;
  if (inet_pton(AF_INET6, ip.c_str(), out) == 1) return 16;
  return 0;
}

std::string host_of(const std::string& host_port) {
  if (!host_port.empty() && host_port[0] == '[') return host_port.substr(1, host_port.find(']') - 1);
  return host_port.substr(0, host_port.rfind(':'));
}

std::string to_ip(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof(buf));
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf, sizeof(buf));
  return buf;
}

}  // namespace

bool is_loopback_ip(const std::string& ip) {
  unsigned char b[16];
  size_t n = ip_bytes(ip, b);
  if (n == 4) return b[0] == 127;
  if (n == 16) {
    static const unsigned char v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::memcmp(b, v6_loopback, 16) == 0;
  }
  return false;
}

Status check_cidr(const std::string& cidr) {
  size_t slash = cidr.find('/');
  unsigned char b[16];
  size_t n = ip_bytes(cidr.substr(0, slash), b);
  char* end = nullptr;
  long bits = slash == std::string::npos ? -1 : std::strtol(cidr.c_str() + slash + 1, &end, 10);
  if (n == 0 || bits < 0 || (end && *end) || bits > static_cast<long>(n * 8))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "'" + cidr + "' is not an address range such as 10.1.0.0/16");
  return Status::Ok();
}

bool ip_in_cidr(const std::string& ip, const std::string& cidr) {
  if (!check_cidr(cidr).ok()) return false;
  size_t slash = cidr.find('/');
  unsigned char a[16], net[16];
  size_t n = ip_bytes(ip, a);
  if (n == 0 || n != ip_bytes(cidr.substr(0, slash), net)) return false;
  long bits = std::strtol(cidr.c_str() + slash + 1, nullptr, 10);
  for (size_t i = 0; i < n && bits > 0; ++i, bits -= 8) {
    const unsigned char mask = bits >= 8 ? 0xff : static_cast<unsigned char>(0xff << (8 - bits));
    if ((a[i] & mask) != (net[i] & mask)) return false;
  }
  return true;
}

std::vector<std::string> interface_addresses(const std::string& iface, const std::string& cidr) {
  std::vector<std::string> v4, v6;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
    if (!iface.empty() && iface != i->ifa_name) continue;
    const int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    if (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr)) continue;
    const std::string ip = to_ip(i->ifa_addr);
    if (!cidr.empty() && !ip_in_cidr(ip, cidr)) continue;
    (family == AF_INET ? v4 : v6).push_back(ip);
  }
  freeifaddrs(list);
  v4.insert(v4.end(), v6.begin(), v6.end());
  return v4;
}

Status route_source_to(const std::string& ip, std::string* source) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(9);
    len = sizeof(*v4);
  } else if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(9);
    len = sizeof(*v6);
  } else {
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "'" + ip + "' is not an IP address");
  }
  int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(NEXAR_ERR_SYSTEM, strprintf("socket: %s", std::strerror(errno)));
  sockaddr_storage local{};
  socklen_t local_len = sizeof(local);
  Status s;
  if (connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0)
    s = Status(NEXAR_ERR_SYSTEM, strprintf("no route toward %s: %s", ip.c_str(), std::strerror(errno)));
  else if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0)
    s = Status(NEXAR_ERR_SYSTEM, strprintf("getsockname: %s", std::strerror(errno)));
  else
    *source = to_ip(reinterpret_cast<sockaddr*>(&local));
  close(fd);
  return s;
}

Status select_address(const std::string& rendezvous, const std::string& addr, const std::string& iface,
                      const std::string& cidr, std::string* out) {
  if (!addr.empty()) {
    *out = addr;
    return Status::Ok();
  }
  const std::string target = host_of(rendezvous);
  const bool v6 = target.find(':') != std::string::npos;
  if (!iface.empty() || !cidr.empty()) {
    if (!cidr.empty()) NX_RETURN_IF_ERROR(check_cidr(cidr).with_context("NEXAR_ADDR_CIDR"));
    std::vector<std::string> found = interface_addresses(iface, cidr);
    if (found.empty())
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    strprintf("no address on this host matches%s%s%s%s", iface.empty() ? "" : " NEXAR_IFACE=",
                              iface.c_str(), cidr.empty() ? "" : " NEXAR_ADDR_CIDR=", cidr.c_str()));
    // Prefer the rendezvous's family: the ranks dial each other as they dial it.
    for (const std::string& ip : found)
      if ((ip.find(':') != std::string::npos) == v6) {
        *out = ip;
        return Status::Ok();
      }
    *out = found.front();
    return Status::Ok();
  }
  if (target.empty() || is_loopback_ip(target)) {
    *out = v6 ? "::1" : "127.0.0.1";
    return Status::Ok();
  }
  NX_RETURN_IF_ERROR(route_source_to(target, out).with_context("choosing the address toward the rendezvous"));
  if (is_loopback_ip(*out))
    return Status(NEXAR_ERR_SYSTEM, "the route toward the rendezvous " + target + " leaves from loopback");
  return Status::Ok();
}

Status select_address_from_params(const std::string& rendezvous, std::string* out) {
  return select_address(rendezvous, param::NEXAR_ADDR.get(), param::NEXAR_IFACE.get(),
                        param::NEXAR_ADDR_CIDR.get(), out);
}

}  // namespace nexar::bootstrap
