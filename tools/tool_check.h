// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The benchmark tools' answer to a failed nexar call: the call, its result and the
// communicator's last error on stderr, then exit 1.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "nexar/nexar.h"

inline void exit_unless_ok(const char* tool, nexar_result_t r, const char* what, nexar_comm_t comm) {
  if (r == NEXAR_SUCCESS) return;
  std::fprintf(stderr, "%s: %s: %s: %s\n", tool, what, nexar_result_string(r), nexar_comm_last_error(comm));
  std::exit(1);
}
