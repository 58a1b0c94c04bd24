// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* The program of the launch benchmark (tools/compare_launch.sh): init, one allreduce,
 * destroy; exits 0 when the sum of ones equals the world size. tools/mpi_launch_probe.c is
 * the same program over MPI. */
#include "nexar/nexar.h"

int main(void) {
  nexar_comm_t world;
  if (nexar_init(&world) != NEXAR_SUCCESS) return 1;
  int size = 0;
  float one = 1, sum = 0;
  if (nexar_comm_size(world, &size) != NEXAR_SUCCESS) return 1;
  if (nexar_allreduce(&one, &sum, 1, NEXAR_FLOAT32, NEXAR_SUM, world) != NEXAR_SUCCESS) return 1;
  if (nexar_comm_destroy(world) != NEXAR_SUCCESS) return 1;
  return sum == (float)size ? 0 : 1;
}
