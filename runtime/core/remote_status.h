// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A failure whose result code came from outside the process: a peer's abort frame or
// record, an RPC reply, a rendezvous value.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace nexar {

// The failure the code names, with message; a code that names no failure in nexar.h
// (success included) is NEXAR_ERR_PROTOCOL naming it, never an out-of-range
// nexar_result_t.
Status remote_failure(int64_t code, std::string message);

}  // namespace nexar
