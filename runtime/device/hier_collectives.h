// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Collectives on device buffers over the NCCL hierarchy: NCCL inside each host, nexar
// between hosts (pipelined through pinned memory). The algorithms are in docs/cuda.md.
#pragma once

#include "collectives/collective.h"
#include "comm/comm.h"
#include "device/hierarchy.h"

namespace nexar::device {

// Whether the NCCL path runs this collective (same answer on every rank: it depends only
// on the kind, op and layout): allreduce, broadcast, reduce, and, on one host, allgather
// and reduce_scatter; AVG only on one host (across hosts it is staged for exact results);
// never BAND / BOR / BXOR (NCCL has no bitwise ops: staged, reduced on the host).
bool hier_applies(const Hierarchy& h, const coll::CollArgs& a);

// Runs a (hier_applies) on device buffers. Ordered on stream; returns with the work
// complete unless leave_async, in which case the last NCCL step may still be queued on
// stream (only when stream is the program's: it orders what follows).
Status run_hier(comm::Comm& c, Hierarchy& h, const coll::CollArgs& a, void* stream, bool leave_async);

}  // namespace nexar::device
