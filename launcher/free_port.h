// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A TCP port that is free on 127.0.0.1 right now (for torchrun's MASTER_PORT, which rank 0
// binds later: the usual small race of every launcher that picks a port for its ranks).
#pragma once

#include "core/status.h"

namespace nexar::launcher {

Status find_free_tcp_port(int* port);

}  // namespace nexar::launcher
