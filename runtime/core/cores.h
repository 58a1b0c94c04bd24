// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// How many cores the ranks of a host may run on. usable_cores() is this process's own
// view (the cores it may use, or the host's online cores when it is bound to exactly one:
// one rank's mask says nothing about where the others run), for decisions it makes alone
// (the engine's waiter spins or yields). Decisions every rank must make alike (the cost
// model's oversubscription term) use the union of the affinity masks of the host's ranks,
// exchanged at start-up (affinity_hex, cpus_in_union): the same number on every rank.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nexar {

int usable_cores();

// This process's affinity mask as hex digits, most significant first (bit i: CPU i), at
// least "0"; "" when it cannot be read.
std::string affinity_hex();

// The CPUs in the union of hex masks (as affinity_hex writes them; "" or malformed ones
// add nothing).
int cpus_in_union(const std::vector<std::string>& masks);

// Bytes of the largest cache of CPU 0 (the highest level sysfs lists, else the C
// library's L3 or L2), 0 when neither can say; read once per process. The same on every
// rank of a host.
size_t last_level_cache_bytes();

// Bytes of CPU 0's largest cache that no other CPU shares (sysfs's shared_cpu_list names
// CPU 0 alone: the L2 of one core here), 0 when sysfs does not say; read once per process.
size_t private_cache_bytes();

}  // namespace nexar
