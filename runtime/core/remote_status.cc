// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/remote_status.h"

#include <utility>

namespace nexar {

Status remote_failure(int64_t code, std::string message) {
  // NEXAR_ERR_INVALID_ARGUMENT (-1) down to NEXAR_ERR_REVOKED, the lowest in nexar.h.
  if (code <= NEXAR_ERR_INVALID_ARGUMENT && code >= NEXAR_ERR_REVOKED)
    return Status(static_cast<nexar_result_t>(code), std::move(message));
  return Status(NEXAR_ERR_PROTOCOL,
                strprintf("a peer sent result code %lld, which names no failure: ", static_cast<long long>(code)) +
                    message);
}

}  // namespace nexar
