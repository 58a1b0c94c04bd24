// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/cma.h"

namespace nexar::shm {

bool cma_probe(pid_t pid, uint64_t addr, uint64_t expected) {
  uint64_t v = 0;
  return cma_read(pid, &v, addr, sizeof(v), sizeof(v)).ok() && v == expected;
}

}  // namespace nexar::shm
