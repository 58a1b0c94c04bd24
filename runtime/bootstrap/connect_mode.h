// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_CONNECT: whether a world opens its QUIC connections at init (eager) or on first
// use (lazy, docs/scaling.md).
#pragma once

#include <string>

#include "core/status.h"
#include "core/topology.h"

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

// *t from NEXAR_TOPOLOGY for a world of n; an unknown value, or a sparse topology with a
// transport that has no relay (tcp), is NEXAR_ERR_INVALID_ARGUMENT naming it.
Status topology_from_params(const std::string& transport, int n, topology::Topology* t);

// A sparse topology's relay limits (p2p::Engine::set_relay_budget): NEXAR_RELAY_BUDGET,
// and fragments that travel inline (with their prefix, at most NEXAR_EAGER_LIMIT and the
// budget). A budget or an eager limit below 1024 bytes is NEXAR_ERR_INVALID_ARGUMENT
// naming it (its fragments would be all prefix, or too large to travel inline and in order).
Status relay_budget_from_params(const topology::Topology& t, int n, uint64_t* budget, size_t* fragment);

// The connection field of an address entry: "<connect mode>,<topology>".
std::string connection_field(bool lazy, const topology::Topology& t);
// Every rank must route alike (a rank that relays through a peer with no link to the
// destination loses the message): peer's field naming another mode or topology is
// NEXAR_ERR_MISMATCH naming both ranks and values.
Status same_connections(int me, bool lazy, const topology::Topology& t, int peer, const std::string& theirs);

}  // namespace nexar::bootstrap
