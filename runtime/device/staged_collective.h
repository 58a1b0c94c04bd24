// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Any collective on device buffers, by staging: every device buffer it reads is copied to
// pinned host memory, nexar's host algorithm runs on the copies, and every device buffer it
// writes is copied back. Per rank and per buffer, so ranks mixing host and device buffers
// work. Used for the collectives the NCCL path does not cover and when it is off.
#pragma once

#include <cstdint>

#include "collectives/collective.h"
#include "comm/comm.h"
#include "device/device_comm.h"

namespace nexar::device {

// Bytes of sendbuf a collective reads and of recvbuf it writes on this rank.
size_t input_bytes(const coll::CollArgs& a, int rank, int size);
size_t output_bytes(const coll::CollArgs& a, int rank, int size);

// Whether a buffer of the call that this rank reads or writes is device memory.
bool any_device_buffer(const coll::CollArgs& a, int rank, int size);
// Of a kind with a fixed count: [*lo, *hi) from the lowest start to the highest end of the
// buffers this rank reads or writes (lo == hi when it touches none).
void buffer_span(const coll::CollArgs& a, int rank, int size, uintptr_t* lo, uintptr_t* hi);
// Whether [lo, hi) lies in the brk heap (host memory for sure, cuda_detect.h's in_brk_heap;
// true when empty). The heap is one range, so a call's buffers all lie in it when their
// span does.
bool span_in_brk_heap(uintptr_t lo, uintptr_t hi);
// Whether every buffer this rank reads or writes is device memory (and at least one is).
bool all_device_buffers(const coll::CollArgs& a, int rank, int size);

Status run_staged(comm::Comm& c, const coll::CollArgs& a, DeviceComm& d);

}  // namespace nexar::device
