// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// How many cores the ranks of this host may run on, for decisions about spinning versus
// yielding (the engine's waiter, the slot collectives' spin, the cost model's
// oversubscription term): the cores this process may use, or the host's online cores when
// it is bound to exactly one (mpirun --bind-to core, taskset per rank: one rank's mask
// says nothing about where the others run). At least 1.
#pragma once

namespace nexar {

int usable_cores();

}  // namespace nexar
