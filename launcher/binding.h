// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Where the ranks of one host may run (nexrun --bind-to, --report-bindings): the CPUs
// each rank is bound to before its program starts, chosen from the CPUs nexrun itself may
// use and the host's topology (/sys: a core is all its hardware threads, a socket all its
// cores). Open MPI 4.1's defaults: bound to a core for 2 ranks or fewer, to a socket for
// more, not bound when the ranks outnumber the cores. The ranks exchange their masks at
// start-up (core/cores.h), so the cost model of every rank sees what the binding says.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::launcher {

enum class BindTo { DEFAULT, NONE, CORE, SOCKET };

// "none", "core", "socket" (an empty string: DEFAULT); anything else is an error.
Status parse_bind_to(const std::string& text, BindTo* out);
const char* bind_to_name(BindTo b);

// The hardware of this host nexrun may use: each core's CPUs, each socket's cores.
struct Topology {
  std::vector<std::vector<int>> cores;    // CPU numbers per core, cores in CPU order
  std::vector<std::vector<int>> sockets;  // core indices per socket
};
// From this process's affinity mask and /sys/devices/system/cpu/cpu*/topology (a CPU
// whose topology cannot be read is a core and a socket of its own).
Topology this_host();

struct RankBinding {
  std::vector<int> cpus;  // empty: not bound
  std::string what;       // "core 1", "socket 0", "nothing"
};

// The binding of each of n ranks on a host with topology t. An explicit --bind-to core
// with more ranks than cores is NEXAR_ERR_INVALID_ARGUMENT (Open MPI refuses it too).
Status plan_bindings(BindTo policy, int n, const Topology& t, std::vector<RankBinding>* out);

// "rank 3 bound to core 1 (CPUs 2,3)" / "rank 0 not bound (CPUs 0-7)".
std::string describe_binding(int rank, const RankBinding& b, const Topology& t);

}  // namespace nexar::launcher
