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

// The mode's name as NEXAR_CONNECT spells it (and the address entry carries it).
const char* connect_mode_name(bool lazy);

// Every rank must connect alike: an eager rank waits at init for a lazy peer that never
// dials, and a lazy rank's knock is refused by an eager one. theirs is peer's mode from
// its address entry; a different one is NEXAR_ERR_MISMATCH naming both ranks and modes.
Status same_connect_mode(int me, bool lazy, int peer, const std::string& theirs);

}  // namespace nexar::bootstrap
