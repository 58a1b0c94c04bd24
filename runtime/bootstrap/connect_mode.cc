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

}  // namespace nexar::bootstrap
