// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* A rank for the trace end-to-end test: a few collectives (blocking and not), a ring of
 * point-to-point messages, then a collective on a duplicate communicator that fails
 * (rank 0 calls broadcast where the others call allreduce), then the world ends, which
 * writes NEXAR_TRACE's file. Prints "trace_probe ok" when every call returned what it
 * should.
 * With an argument, a job that ends badly after one allreduce:
 *   "signals": rank 1 calls abort(); the others sleep in their own code until nexrun's
 *              teardown (SIGTERM) ends them;
 *   "failure": a collective fails (mismatched kinds), then every rank _exit()s at once.
 * "calls": a blocking allreduce that rank 0 issues behind its own iallreduce (which waits
 * for rank 1, late by 0.5 s), then agree on the world and, on a duplicate, agree, revoke
 * and shrink; the world ends normally.
 * "one": on a world of one rank, an allgather, a barrier and an iallreduce, results checked;
 * the world ends normally. */
#include <nexar/nexar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(expr)                                                              \
  do {                                                                           \
    nexar_result_t r_ = (expr);                                                  \
    if (r_ != NEXAR_SUCCESS) {                                                   \
      fprintf(stderr, "%s failed: %s\n", #expr, nexar_result_string(r_));         \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(int argc, char** argv) {
  nexar_comm_t world, dup;
  int rank, size;
  CHECK(nexar_init(&world));
  CHECK(nexar_comm_rank(world, &rank));
  CHECK(nexar_comm_size(world, &size));
  float v[4] = {1, 2, 3, 4}, out[4];
  CHECK(nexar_allreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_SUM, world));
  if (argc > 1 && strcmp(argv[1], "signals") == 0) {
    if (rank == 1) abort();
    sleep(60);  /* nexrun's teardown ends this rank */
    return 2;
  }
  if (argc > 1 && strcmp(argv[1], "calls") == 0) {
    nexar_request_t rq;
    nexar_comm_t shrunk;
    int flag = 1;
    if (rank == 1) usleep(500 * 1000);
    CHECK(nexar_iallreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_SUM, world, &rq));
    CHECK(nexar_allreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_MAX, world));
    CHECK(nexar_wait(rq));
    CHECK(nexar_comm_agree(world, &flag));
    CHECK(nexar_comm_dup(world, &dup));
    CHECK(nexar_comm_agree(dup, &flag));
    CHECK(nexar_comm_revoke(dup));
    CHECK(nexar_comm_shrink(dup, &shrunk));
    CHECK(nexar_barrier(shrunk));
    CHECK(nexar_comm_destroy(shrunk));
    CHECK(nexar_comm_destroy(dup));
    CHECK(nexar_comm_destroy(world));
    printf("trace_probe ok\n");
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "one") == 0) {
    nexar_request_t rq;
    float all[4] = {0};
    CHECK(nexar_allgather(v, all, 4, NEXAR_FLOAT32, world));
    CHECK(nexar_barrier(world));
    CHECK(nexar_iallreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_MAX, world, &rq));
    CHECK(nexar_wait(rq));
    if (size != 1 || memcmp(all, v, sizeof v) != 0 || memcmp(out, v, sizeof v) != 0) {
      fprintf(stderr, "one rank of %d: wrong results\n", size);
      return 1;
    }
    CHECK(nexar_comm_destroy(world));
    printf("trace_probe ok\n");
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "failure") == 0) {
    CHECK(nexar_comm_set_timeout(world, 10));
    if ((rank == 0 ? nexar_broadcast(v, 4, NEXAR_FLOAT32, 0, world)
                   : nexar_allreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_SUM, world)) == NEXAR_SUCCESS)
      fprintf(stderr, "rank %d: the mismatched collective succeeded\n", rank);
    sleep(2); /* the peer fails its own call too before the job's teardown */
    _exit(3);  /* no exit handlers: only the flush at the failure wrote the trace */
  }
  CHECK(nexar_broadcast(v, 4, NEXAR_FLOAT32, 0, world));
  nexar_request_t req;
  CHECK(nexar_iallreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_MAX, world, &req));
  CHECK(nexar_wait(req));
  int token = rank, got = -1;
  CHECK(nexar_isend(&token, 1, NEXAR_INT32, (rank + 1) % size, 7, world, &req));
  CHECK(nexar_recv(&got, 1, NEXAR_INT32, (rank + size - 1) % size, 7, world));
  CHECK(nexar_wait(req));
  if (got != (rank + size - 1) % size) {
    fprintf(stderr, "rank %d got %d\n", rank, got);
    return 1;
  }
  CHECK(nexar_barrier(world));
  CHECK(nexar_comm_dup(world, &dup));
  CHECK(nexar_comm_set_timeout(dup, 10));
  nexar_result_t r = rank == 0 ? nexar_broadcast(v, 4, NEXAR_FLOAT32, 0, dup)
                               : nexar_allreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_SUM, dup);
  if (r == NEXAR_SUCCESS) {
    fprintf(stderr, "rank %d: the mismatched collective succeeded\n", rank);
    return 1;
  }
  nexar_comm_destroy(dup);
  CHECK(nexar_barrier(world));
  CHECK(nexar_comm_destroy(world));
  printf("trace_probe ok\n");
  return 0;
}
