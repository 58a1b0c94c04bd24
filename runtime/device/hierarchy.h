// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The two-level layout of a communicator whose ranks use GPUs: an NCCL communicator among
// the ranks on each host ("node"), and nexar communicators between hosts among the ranks
// with the same local index ("cross"). Hosts come from the host identity each rank
// published (NEXAR_HOST_ID overrides it), numbered by first appearance in comm rank order,
// so ranks need not be numbered contiguously per host, and hosts may differ in GPU count:
// only local indices below the smallest host's count get a cross communicator.
#pragma once

#include <memory>
#include <vector>

#include "comm/comm.h"
#include "device/plugin_loader.h"

namespace nexar::device {

struct Topology {
  int hosts = 0;
  int my_host = 0;
  int local_rank = 0, local_size = 0;
  int min_local = 0;              // smallest ranks-per-host over the hosts
  std::vector<int> host_of;       // per comm rank
  std::vector<int> local_of;      // per comm rank: index among its host's ranks
  std::vector<int> hosts_local;   // per host: its rank count
};

// Purely local: every rank knows every rank's host identity.
Topology topology_of(const comm::Comm& c);

struct Hierarchy {
  ~Hierarchy();
  const CudaPlugin* plugin = nullptr;
  Topology topo;
  std::shared_ptr<comm::Comm> node;   // this host's ranks, ordered by comm rank
  std::shared_ptr<comm::Comm> cross;  // same local index, one per host in host order; null
                                      // when local_rank >= min_local
  void* nccl = nullptr;               // NCCL communicator over node
};

// Collective over c (runs inside one of c's collectives). want: this rank can and may use
// NCCL. Ranks agree first: unless every rank wants it, *out stays null and nothing else
// happens. Any failure while building is agreed on too, and leaves *out null (the staged
// path is then used), after a warning naming the cause.
Status build_hierarchy(comm::Comm& c, const CudaPlugin& p, bool want, std::unique_ptr<Hierarchy>* out);

}  // namespace nexar::device
