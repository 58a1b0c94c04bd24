// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The steps every direct-read collective shares (allreduce/reduce/reduce_scatter and the
// data-movement collectives shm_direct, alltoallv shm_direct): publish this rank's buffer
// addresses and arrive; read from the members' memory (CMA); publish read_done and wait
// only for the members that read this rank's memory. A rank's buffers are read only
// between its arrival and the readers' read_done, so returning after that wait is safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "nexar/nexar.h"
#include "shm_coll/shm_slots.h"

namespace nexar::coll {

// Who reads this rank's memory, for end_direct: every member, one rank, or nobody.
inline constexpr int kReadByAll = -1;
inline constexpr int kReadByNobody = -2;

// A piece of a peer's block read per process_vm_readv: the call's fixed cost (pinning the
// pages, ~1-2 us) over 256 KiB is small, and out, own and bounce pieces (768 KiB) stay in
// a core's L2 while they are combined.
inline constexpr size_t kDirectPiece = 256u << 10;

// The addresses members read (send: this rank's input, recv: its output or scratch) into
// its slot buffer for seq, then arrive (descriptors compared, every member present).
Status arrive_direct(ShmSlots& s, int rank, uint64_t seq, const void* send, const void* recv, uint64_t count);

// Publishes read_done (also after a failed read: the others' waits then end with the
// communicator's error), then waits for the readers of this rank's memory (readers: a
// comm rank, kReadByAll or kReadByNobody). Returns `reads` when it failed.
Status end_direct(ShmSlots& s, uint64_t seq, const Status& reads, int readers);

// out[0, len) = own op (every other member's input at byte offset at_b of the address it
// published as sendbuf), members in ring order from rank + 1, each read by CMA in pieces
// of kDirectPiece, the first straight into out (unless out is own), the others into a
// cache-resident bounce buffer. out may be own (each element is read before it is
// written). Ops must be commutative (all of nexar's are).
Status reduce_block_direct(ShmSlots& s, int p, int rank, uint64_t seq, nexar_dtype_t dtype, nexar_op_t op,
                           const void* own, size_t at_b, void* out, size_t len);

}  // namespace nexar::coll
