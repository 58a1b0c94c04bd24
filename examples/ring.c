// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* A first nexar program: every rank says hello, passes a token around the ring, and
 * meets the others at a barrier.   nexrun -np 4 ./ring                                  */
#include <stdio.h>
#include <stdlib.h>

#include "nexar/nexar.h"

#define CHECK(call)                                                                        \
  do {                                                                                     \
    nexar_result_t r_ = (call);                                                            \
    if (r_ != NEXAR_SUCCESS) {                                                             \
      fprintf(stderr, "%s: %s (%s)\n", #call, nexar_result_string(r_), nexar_comm_last_error(world)); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

int main(void) {
  nexar_comm_t world = NULL;
  int rank, size, local_rank;
  CHECK(nexar_init(&world));
  CHECK(nexar_comm_rank(world, &rank));
  CHECK(nexar_comm_size(world, &size));
  CHECK(nexar_comm_local_rank(world, &local_rank));
  printf("hello from rank %d of %d (local rank %d), nexar %s\n", rank, size, local_rank, nexar_version());

  /* Rank 0 starts a token; each rank adds its rank and passes it on. */
  long token = 0;
  if (size > 1) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
      CHECK(nexar_send(&token, 1, NEXAR_INT64, next, 0, world));
      CHECK(nexar_recv(&token, 1, NEXAR_INT64, prev, 0, world));
      printf("token came back to rank 0 as %ld (expected %ld)\n", token, (long)size * (size - 1) / 2);
    } else {
      CHECK(nexar_recv(&token, 1, NEXAR_INT64, prev, 0, world));
      token += rank;
      CHECK(nexar_send(&token, 1, NEXAR_INT64, next, 0, world));
    }
  }
  CHECK(nexar_barrier(world));
  CHECK(nexar_comm_destroy(world));
  return 0;
}
