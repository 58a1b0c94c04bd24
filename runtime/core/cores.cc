// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/cores.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace nexar {

int usable_cores() {
  cpu_set_t cpus;
  int n = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  if (n == 1) n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return std::max(1, n);
}

}  // namespace nexar
