// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Which host runs which rank: --map-by slot (fill each host's slots in order, Open MPI's
// default) or node (round robin over the hosts), or --npernode N ranks per host.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "launcher/host_list.h"

namespace nexar::launcher {

struct RankMap {
  std::vector<HostSlots> hosts;
  std::vector<int> host_of_rank;                // index into hosts
  std::vector<std::vector<int>> ranks_of_host;  // ascending
  int local_rank(int rank) const;
  // Hosts that run at least one rank, in host order (node rank = position here).
  std::vector<int> used_hosts() const;
};

// np 0: every slot (or npernode per host). Too many ranks for the slots is an error
// naming both counts.
Status map_ranks(const std::vector<HostSlots>& hosts, int np, int npernode, bool by_node, RankMap* out);

// "host nxA: ranks 0-1 (2 slots)" lines, one per host (--display-map, --dry-run).
std::string describe_map(const RankMap& map);

}  // namespace nexar::launcher
