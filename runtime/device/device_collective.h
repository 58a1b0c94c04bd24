// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Where a collective with device buffers goes: the NCCL hierarchy when it applies, else
// host staging. The API layer asks for the task; null means "host buffers: run as usual".
#pragma once

#include <cstdint>

#include <memory>

#include "collectives/collective.h"
#include "comm/coll_queue.h"
#include "comm/comm.h"

namespace nexar::device {

// *task: null when this rank's buffers are host memory (and, for a barrier, no CUDA stream
// is set); else the task running the collective on device buffers. NEXAR_ERR_UNSUPPORTED,
// naming why, when a buffer is device memory and CUDA support is not available,
// or the call is one with a count per rank (those take host buffers only).
Status device_collective_task(const std::shared_ptr<comm::Comm>& c, const coll::CollArgs& a, comm::CollTaskPtr* task);

// True when device_collective_task makes no task for the call: its buffers are host
// memory for sure (in the brk heap, or no CUDA driver loaded) or, for a barrier, no CUDA
// stream is set. Asks no more than device_collective_task does on such a call.
bool host_only_call(const comm::Comm& c, const coll::CollArgs& a);
// host_only_call for a call of a fixed count of this kind whose buffers span [lo, hi) on
// this rank (staged_collective.h's buffer_span; the plain blocking path remembers it).
bool host_only_span(const comm::Comm& c, coll::CollKind kind, uintptr_t lo, uintptr_t hi);
// Whether host_only_span's answer for that span is true as long as the brk heap reaches hi
// (cuda_detect.h's brk_heap_reaches): its buffers lie in the heap now. Not a barrier's (its
// answer is whether a CUDA stream is set).
bool host_while_heap_reaches(coll::CollKind kind, uintptr_t lo, uintptr_t hi);

}  // namespace nexar::device
