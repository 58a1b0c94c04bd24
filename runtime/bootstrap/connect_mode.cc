// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/connect_mode.h"

#include "core/params.h"

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
