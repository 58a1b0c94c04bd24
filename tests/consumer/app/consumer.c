// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* A program outside the nexar tree: each rank adds rank+1; prints the sum from rank 0. */
#include <stdio.h>

#include <nexar/nexar.h>

int main(void) {
  nexar_comm_t world = NULL;
  if (nexar_init(&world) != NEXAR_SUCCESS) {
    fprintf(stderr, "nexar_init: %s\n", nexar_comm_last_error(NULL));
    return 1;
  }
  int rank = 0, size = 0;
  nexar_comm_rank(world, &rank);
  nexar_comm_size(world, &size);
  long long mine = rank + 1, sum = 0;
  nexar_result_t r = nexar_allreduce(&mine, &sum, 1, NEXAR_INT64, NEXAR_SUM, world);
  if (r != NEXAR_SUCCESS) fprintf(stderr, "allreduce: %s\n", nexar_comm_last_error(world));
  if (r == NEXAR_SUCCESS && rank == 0) printf("consumer: %d ranks, sum %lld\n", size, sum);
  nexar_result_t d = nexar_comm_destroy(world);
  return r == NEXAR_SUCCESS && d == NEXAR_SUCCESS && sum == (long long)size * (size + 1) / 2 ? 0 : 1;
}
