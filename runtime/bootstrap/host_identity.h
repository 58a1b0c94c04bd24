// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The identity of this host: ranks publishing the same one share memory (and will use
// the shared-memory transport). NEXAR_HOST_ID overrides it (tests make ranks "hosts").
#pragma once

#include <string>
#include <vector>

namespace nexar::bootstrap {

std::string host_identity();

// The machine part of a host identity (host name and boot id, without the network
// namespace): "hosts" that are namespaces of one machine share its cores. An identity
// from NEXAR_HOST_ID is its own machine.
std::string machine_of(const std::string& host_id);

// Among the ranks whose identities are `host_ids`, how many before `rank` run on its
// machine: its index there (a home core per rank of a machine, core/core_home.h).
int machine_index(const std::vector<std::string>& host_ids, int rank);

}  // namespace nexar::bootstrap
