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
// Each process counts itself in "uid/joining" for the whole join (+1 before, -1 after,
// whatever the outcome): the maker of the id serves the rendezvous at exit until that
// count is 0 (bounded), so a process still between its steps when the world failed reads
// the failure's reason instead of losing the rendezvous.
#pragma once

#include <chrono>

#include "core/status.h"
#include "rendezvous/kv_store.h"
#include "rendezvous/rendezvous.h"

namespace nexar::bootstrap {

// NEXAR_ERR_MISMATCH naming the sizes that differ, NEXAR_ERR_INVALID_ARGUMENT naming the
// rank two processes passed;
// NEXAR_ERR_TIMEOUT naming the ranks that did not join within timeout.
Status unique_id_join(rendezvous::Client& rv, int rank, int size, std::chrono::milliseconds timeout);

// True when no process is inside unique_id_join with the job whose rendezvous store this is.
bool unique_id_joins_settled(const rendezvous::KvStore& store);

}  // namespace nexar::bootstrap
