// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Copies into buffers that a call leaves for its caller, written around the cache when the
// call's data outgrows it. Each line that a cached copy writes is first read from memory
// (the core must own it), then written back when it is evicted: three passes over memory
// per byte. Non-temporal stores write whole lines without reading them first: two passes.
// When the data the call touches on the host does not fit the last-level cache, the lines
// written would be evicted before anybody reads them, so bypassing the cache loses
// nothing. Two ranks each copying 8 MiB at once (one core each, 2026-11-28): 0.45-0.65 ms
// by non-temporal stores, 0.61-0.84 ms by memcpy in 128 KiB pieces, 0.84-1.76 ms whole;
// within the cache (4 MiB each) the stores take 2.7x memcpy's time.
#pragma once

#include <cstddef>

namespace nexar::coll {

// Whether a call that touches host_bytes on its host (every member's input and output)
// copies around the cache: more than the last-level cache (core/cores.h) holds.
bool streams_past_cache(double host_bytes);

// dst = src (n bytes; the ranges may overlap) by non-temporal stores when `stream` and the
// ranges do not overlap, else copy_bytes (coll_util.h).
void copy_out(void* dst, const void* src, size_t n, bool stream);

}  // namespace nexar::coll
