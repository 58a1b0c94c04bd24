// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Shared by the rank programs that integration tests start under nexrun: checks that
// print the failing expression, the rank and the library's last error, then exit 1.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "nexar/nexar.h"
#include "pattern.h"

#define PROBE_CHECK(cond)                                                                          \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "rank %d: check failed at %s:%d: %s\n", probe::g_rank, __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

#define PROBE_OK(call)                                                                             \
  do {                                                                                            \
    nexar_result_t probe_r_ = (call);                                                             \
    if (probe_r_ != NEXAR_SUCCESS) {                                                              \
      std::fprintf(stderr, "rank %d: %s failed at %s:%d: %s (%s)\n", probe::g_rank, #call, __FILE__, __LINE__, \
                   nexar_result_string(probe_r_), nexar_comm_last_error(probe::g_world));          \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace probe {

inline int g_rank = -1;
inline nexar_comm_t g_world = nullptr;

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace probe
