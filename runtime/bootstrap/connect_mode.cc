// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/connect_mode.h"

#include <algorithm>

#include "core/params.h"
#include "p2p/engine.h"

namespace nexar::bootstrap {

Status lazy_connections(const std::string& transport, bool* lazy) {
  const std::string mode = param::NEXAR_CONNECT.get();
  if (mode != "eager" && mode != "lazy")
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("NEXAR_CONNECT=%s is not a connection mode (eager or lazy)", mode.c_str()));
  *lazy = mode == "lazy";
  if (*lazy && transport == "tcp")
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  "NEXAR_CONNECT=lazy works with QUIC only (NEXAR_TRANSPORT=auto or quic), not NEXAR_TRANSPORT=tcp");
  return Status::Ok();
}

const char* connect_mode_name(bool lazy) { return lazy ? "lazy" : "eager"; }

Status same_connect_mode(int me, bool lazy, int peer, const std::string& theirs) {
  if (theirs == connect_mode_name(lazy)) return Status::Ok();
  return Status(NEXAR_ERR_MISMATCH,
                strprintf("NEXAR_CONNECT differs between ranks: rank %d has %s, rank %d has %s (set it alike on every "
                          "rank)", me, connect_mode_name(lazy), peer, theirs.c_str()));
}


Status topology_from_params(const std::string& transport, int n, topology::Topology* t) {
  const std::string text = param::NEXAR_TOPOLOGY.get();
  NX_RETURN_IF_ERROR(topology::parse(text, n, t));
  if (transport == "tcp" && !topology::complete(*t, n))
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("NEXAR_TOPOLOGY=%s works with QUIC only (NEXAR_TRANSPORT=auto or quic), not "
                            "NEXAR_TRANSPORT=tcp", text.c_str()));
  return Status::Ok();
}

Status relay_budget_from_params(const topology::Topology& t, int n, uint64_t* budget, size_t* fragment) {
  const long long b = param::NEXAR_RELAY_BUDGET.get(), eager = param::NEXAR_EAGER_LIMIT.get();
  *budget = UINT64_MAX;
  *fragment = 1;
  if (topology::complete(t, n)) return Status::Ok();  // nothing is relayed
  constexpr long long kMin = 1024;
  if (b < kMin)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("NEXAR_RELAY_BUDGET=%lld is below %lld bytes (NEXAR_TOPOLOGY=%s relays in fragments "
                            "that must fit it)", b, kMin, topology::name(t).c_str()));
  if (eager < kMin)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("NEXAR_EAGER_LIMIT=%lld is below %lld bytes (NEXAR_TOPOLOGY=%s relays in fragments "
                            "that travel inline)", eager, kMin, topology::name(t).c_str()));
  *budget = static_cast<uint64_t>(b);
  // Inline on every link a fragment may cross: at most 1 MiB, as the wire protocol
  // accepts (transport/quic_link/wire.h), and through a shared-memory ring (a relay's
  // host peers keep shared memory).
  const long long shm = std::max<long long>(param::NEXAR_SHM_EAGER.get(), kMin);
  *fragment = static_cast<size_t>(std::min({b, eager, shm, 1LL << 20})) - p2p::kRelayPrefixBytes;
  return Status::Ok();
}

std::string connection_field(bool lazy, const topology::Topology& t) {
  return std::string(connect_mode_name(lazy)) + "," + topology::name(t);
}

Status same_connections(int me, bool lazy, const topology::Topology& t, int peer, const std::string& theirs) {
  const size_t comma = theirs.find(',');
  NX_RETURN_IF_ERROR(same_connect_mode(me, lazy, peer, theirs.substr(0, comma)));
  const std::string their_topology = comma == std::string::npos ? "(none)" : theirs.substr(comma + 1);
  if (their_topology == topology::name(t)) return Status::Ok();
  return Status(NEXAR_ERR_MISMATCH,
                strprintf("NEXAR_TOPOLOGY differs between ranks: rank %d has %s, rank %d has %s (set it alike on every "
                          "rank)", me, topology::name(t).c_str(), peer, their_topology.c_str()));
}

}  // namespace nexar::bootstrap
