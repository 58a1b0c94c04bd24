// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Which IP address a process binds and advertises to its peers (docs/multihost.md):
//   NEXAR_ADDR (a literal) > NEXAR_IFACE / NEXAR_ADDR_CIDR (the first address that
//   matches) > loopback when the rendezvous is on loopback (one host) > the source
//   address of the route toward the rendezvous (connect a UDP socket, getsockname).
// Loopback is never chosen when the rendezvous is elsewhere: peers on other hosts could
// not reach it.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::bootstrap {

bool is_loopback_ip(const std::string& ip);
// "10.1.2.3" in "10.1.0.0/16"; IPv4 and IPv6. False for a malformed cidr.
bool ip_in_cidr(const std::string& ip, const std::string& cidr);
Status check_cidr(const std::string& cidr);

// Addresses of the interfaces that are up, loopback excluded (and IPv6 link-local,
// which needs a scope), filtered by iface name and cidr when not empty. IPv4 first.
std::vector<std::string> interface_addresses(const std::string& iface, const std::string& cidr);

// The local address the kernel would send from toward ip (no packet is sent).
Status route_source_to(const std::string& ip, std::string* source);

// The address to bind and advertise, given where the rendezvous is ("ip:port").
Status select_address(const std::string& rendezvous, const std::string& addr, const std::string& iface,
                      const std::string& cidr, std::string* out);
// The same with NEXAR_ADDR, NEXAR_IFACE and NEXAR_ADDR_CIDR.
Status select_address_from_params(const std::string& rendezvous, std::string* out);

}  // namespace nexar::bootstrap
