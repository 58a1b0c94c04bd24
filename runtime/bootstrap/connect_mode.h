// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_CONNECT: whether a world opens its QUIC connections at init (eager) or on first
// use (lazy, docs/scaling.md).
#pragma once

#include <string>

#include "core/status.h"

namespace nexar::bootstrap {

// *lazy from NEXAR_CONNECT; an unknown value, or lazy with a transport that connects only
// at init (transport: NEXAR_TRANSPORT's value), is NEXAR_ERR_INVALID_ARGUMENT naming it.
Status lazy_connections(const std::string& transport, bool* lazy);

}  // namespace nexar::bootstrap
