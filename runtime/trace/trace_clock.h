// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The recorder's clock: nanoseconds since the Unix epoch, so the records of ranks on
// different hosts line up (as well as their clocks agree). The flight recorder, always on,
// reads the kernel's coarse clock (a vDSO read of the last tick, ~10 ns, a few ms of
// resolution: enough to say which call hung and since when); a trace (NEXAR_TRACE) needs
// durations and reads the precise one.
#pragma once

#include <time.h>

#include <cstdint>

namespace nexar::trace {

inline int64_t epoch_ns(bool precise) {
  timespec ts;
  clock_gettime(precise ? CLOCK_REALTIME : CLOCK_REALTIME_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace nexar::trace
