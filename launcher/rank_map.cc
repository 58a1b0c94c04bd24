// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/rank_map.h"

#include <algorithm>

namespace nexar::launcher {

int RankMap::local_rank(int rank) const {
  const std::vector<int>& on = ranks_of_host.at(static_cast<size_t>(host_of_rank.at(static_cast<size_t>(rank))));
  return static_cast<int>(std::find(on.begin(), on.end(), rank) - on.begin());
}

std::vector<int> RankMap::used_hosts() const {
  std::vector<int> out;
  for (size_t h = 0; h < ranks_of_host.size(); ++h)
    if (!ranks_of_host[h].empty()) out.push_back(static_cast<int>(h));
  return out;
}

Status map_ranks(const std::vector<HostSlots>& hosts, int np, int npernode, bool by_node, RankMap* out) {
  if (hosts.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "no hosts to run on");
  RankMap m;
  m.hosts = hosts;
  std::vector<int> cap;
  long total = 0;
  for (const HostSlots& h : hosts) {
    cap.push_back(npernode > 0 ? npernode : h.slots);
    total += cap.back();
  }
  if (np == 0) np = static_cast<int>(std::min<long>(total, 4096));
  if (np > total)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("%d ranks asked but the %zu host(s) have %ld %s", np, hosts.size(), total,
                            npernode > 0 ? "places (--npernode x hosts)" : "slots"));
  m.ranks_of_host.assign(hosts.size(), {});
  size_t h = 0;
  for (int r = 0; r < np; ++r) {
    // Skip full hosts; by node moves on after every rank, by slot only when full.
    while (static_cast<int>(m.ranks_of_host[h].size()) >= cap[h]) h = (h + 1) % hosts.size();
    m.host_of_rank.push_back(static_cast<int>(h));
    m.ranks_of_host[h].push_back(r);
    if (by_node) h = (h + 1) % hosts.size();
  }
  *out = std::move(m);
  return Status::Ok();
}

std::string describe_map(const RankMap& map) {
  std::string out;
  for (size_t h = 0; h < map.hosts.size(); ++h) {
    out += strprintf("nexrun: map: host %s (%d slot%s): ", map.hosts[h].name.c_str(), map.hosts[h].slots,
                     map.hosts[h].slots == 1 ? "" : "s");
    const auto& ranks = map.ranks_of_host[h];
    if (ranks.empty()) out += "no ranks";
    for (size_t i = 0; i < ranks.size(); ++i) out += (i ? " " : "ranks ") + std::to_string(ranks[i]);
    out += "\n";
  }
  return out;
}

}  // namespace nexar::launcher
