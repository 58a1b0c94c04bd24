// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/core_home.h"

#include <sched.h>
#include <time.h>

namespace nexar {
namespace {
int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

bool CoreHome::return_home() {
  const int home = cpu();
  if (home < 0) return false;
  const int here = sched_getcpu();  // vDSO: nanoseconds
  if (here == home || here < 0) return false;
  const int64_t now = now_ns();
  if (now < next_ns_.load(std::memory_order_relaxed)) return false;
  next_ns_.store(now + kIntervalNs, std::memory_order_relaxed);
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0 || !CPU_ISSET(home, &mask) || CPU_COUNT(&mask) < 2) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(home, &one);
  // Narrowing the mask migrates the thread before the call returns; widening it again
  // leaves the thread where it is now.
  if (sched_setaffinity(0, sizeof(one), &one) != 0) return false;
  (void)sched_setaffinity(0, sizeof(mask), &mask);
  return true;
}

int home_cpu_for(int local_index) {
  cpu_set_t mask;
  if (local_index < 0 || sched_getaffinity(0, sizeof(mask), &mask) != 0) return -1;
  const int n = CPU_COUNT(&mask);
  if (n < 2) return -1;
  int k = local_index % n;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask) && k-- == 0) return c;
  return -1;
}

}  // namespace nexar
