// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* Init, one barrier, destroy: what the launch-time measurements time. */
#include <stdio.h>

#include "nexar/nexar.h"

int main(void) {
  nexar_comm_t world = NULL;
  if (nexar_init(&world) != NEXAR_SUCCESS) {
    fprintf(stderr, "nexar_init: %s\n", nexar_comm_last_error(NULL));
    return 1;
  }
  nexar_result_t r = nexar_barrier(world);
  if (r != NEXAR_SUCCESS) fprintf(stderr, "barrier: %s\n", nexar_comm_last_error(world));
  nexar_result_t d = nexar_comm_destroy(world);
  return r == NEXAR_SUCCESS && d == NEXAR_SUCCESS ? 0 : 1;
}
