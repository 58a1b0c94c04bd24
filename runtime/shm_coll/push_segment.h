// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Pushed data of the direct-read collectives (alltoallv shm_direct; broadcast, allgather
// and alltoall shm_push): a rank copies what its members will read into its own shared
// segment (ShmSlots::own_segment, one per sequence parity) and names the segment inline in
// its slot before it arrives. Its readers memcpy from their mapping of the segment instead
// of reading its memory by CMA (no system call, no page pinning), and the rank returns
// without waiting for them: the segment is rewritten only two sequences later, when every
// member has arrived at the next one and so finished reading this one. A rank that could
// not push names nothing; its readers then read its memory by CMA and it waits for them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "shm_coll/shm_slots.h"

namespace nexar::coll {

// Whether a slot's inline payload (NEXAR_SHM_COLL_INLINE, alike on every member) holds a
// segment's name: where it does not, nobody pushes and nobody looks.
bool may_push(const ShmSlots& s);

// This rank's segment for seq with at least `bytes` data bytes, named in its slot (the
// caller fills it before arriving); nullptr, with nothing named, when pushing is not
// possible here or no segment could be had (NEXAR_FAULT_FAIL point shm_push fails it).
unsigned char* push_area(ShmSlots& s, int rank, uint64_t seq, size_t bytes);

// arrive_direct for the collectives that push: a rank whose arrival failed (the others may
// all have arrived and read) publishes read_done at once, since it reads nothing, so no
// member's destroy keeps its push waiting for it (SlotAreaPool::retire).
Status arrive_pushing(ShmSlots& s, int rank, uint64_t seq, const void* send, const void* recv, uint64_t count);

// Member j's pushed data for seq, checked to hold at least `need` bytes; *out = nullptr
// when j did not push (read its memory by CMA then).
Status pushed_data(ShmSlots& s, int j, uint64_t seq, size_t need, const unsigned char** out, size_t* have = nullptr);

}  // namespace nexar::coll
