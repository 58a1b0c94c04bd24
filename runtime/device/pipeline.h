// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The inter-host step of the hierarchical path: a host collective over the cross
// communicator on a device range, in chunks of NEXAR_CUDA_CHUNK_BYTES, double-buffered in
// pinned memory: while chunk k crosses the network, chunk k+1 is already being copied to
// the host and chunk k-1 back to the device (asynchronous copies on the stream). Every
// member computes the same chunks (same count, dtype and chunk size), so the per-chunk
// collectives match.
#pragma once

#include "collectives/collective.h"
#include "comm/comm.h"
#include "device/plugin_loader.h"

namespace nexar::device {

// proto gives kind, op and root; each chunk runs it in place on pinned memory (sendbuf ==
// recvbuf). copy_in: the chunk's device data is its input; copy_out: its result goes back.
// Returns once every copy is complete.
Status pipelined_host_collective(comm::Comm& cross, const CudaPlugin& p, void* stream, void* dev, size_t count,
                                 const coll::CollArgs& proto, bool copy_in, bool copy_out);

}  // namespace nexar::device
