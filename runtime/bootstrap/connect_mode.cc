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

}  // namespace nexar::bootstrap
