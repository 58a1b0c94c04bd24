// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Page faults the calling thread has taken so far: a test that memory is reused, not
// freed and faulted in again, counts them around the calls it repeats.
#pragma once

#include <sys/resource.h>

inline long thread_minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}
