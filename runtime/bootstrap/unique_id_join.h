// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_init_rank's agreement, through the job's rendezvous, before the mesh forms:
//   the first process to arrive fixes the size ("uid/size"); the others compare theirs;
//   each process claims its rank ("uid/claim/<r>", an atomic add: 1 is the claim, more a
//   second process with that rank);
//   each process that passed both adds 1 to "uid/joined"; the one that makes it `size`
//   sets "uid/done" to "ok", and every process waits for "uid/done".
// A process that finds a size mismatch or a duplicate rank, or whose wait times out,
// poisons "uid/joined" (a large negative add: the count can never reach size again) and,
// when the count had not reached size yet, sets "uid/done" to its reason: every process
// of the job then fails with that reason instead of waiting. A duplicate that arrives
// after the world was complete fails alone.
#pragma once

#include <chrono>

#include "core/status.h"
#include "rendezvous/rendezvous.h"

namespace nexar::bootstrap {

// NEXAR_ERR_MISMATCH naming the sizes that differ, NEXAR_ERR_INVALID_ARGUMENT naming the
// rank two processes passed;
// NEXAR_ERR_TIMEOUT naming the ranks that did not join within timeout.
Status unique_id_join(rendezvous::Client& rv, int rank, int size, std::chrono::milliseconds timeout);

}  // namespace nexar::bootstrap
