// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_result_string lives in core so every layer (and nexrun) can name results.
#include "nexar/nexar.h"

extern "C" __attribute__((visibility("default"))) const char* nexar_result_string(nexar_result_t result) {
  switch (result) {
    case NEXAR_SUCCESS: return "NEXAR_SUCCESS";
    case NEXAR_IN_PROGRESS: return "NEXAR_IN_PROGRESS";
    case NEXAR_ERR_INVALID_ARGUMENT: return "NEXAR_ERR_INVALID_ARGUMENT";
    case NEXAR_ERR_MISMATCH: return "NEXAR_ERR_MISMATCH";
    case NEXAR_ERR_TIMEOUT: return "NEXAR_ERR_TIMEOUT";
    case NEXAR_ERR_PEER_LOST: return "NEXAR_ERR_PEER_LOST";
    case NEXAR_ERR_AUTH: return "NEXAR_ERR_AUTH";
    case NEXAR_ERR_PROTOCOL: return "NEXAR_ERR_PROTOCOL";
    case NEXAR_ERR_SYSTEM: return "NEXAR_ERR_SYSTEM";
    case NEXAR_ERR_UNSUPPORTED: return "NEXAR_ERR_UNSUPPORTED";
    case NEXAR_ERR_ABORTED: return "NEXAR_ERR_ABORTED";
    case NEXAR_ERR_INTERNAL: return "NEXAR_ERR_INTERNAL";
    case NEXAR_ERR_REVOKED: return "NEXAR_ERR_REVOKED";
  }
  return "NEXAR_ERR_UNKNOWN";
}
