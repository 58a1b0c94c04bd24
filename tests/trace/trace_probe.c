/* A rank for the trace end-to-end test: a few collectives (blocking and not), a ring of
 * point-to-point messages, then a collective on a duplicate communicator that fails
 * (rank 0 calls broadcast where the others call allreduce), then the world ends, which
 * writes NEXAR_TRACE's file. Prints "trace_probe ok" when every call returned what it
 * should. */
#include <nexar/nexar.h>
#include <stdio.h>

#define CHECK(expr)                                                              \
  do {                                                                           \
    nexar_result_t r_ = (expr);                                                  \
    if (r_ != NEXAR_SUCCESS) {                                                   \
      fprintf(stderr, "%s failed: %s\n", #expr, nexar_result_string(r_));         \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(void) {
  nexar_comm_t world, dup;
  int rank, size;
  CHECK(nexar_init(&world));
  CHECK(nexar_comm_rank(world, &rank));
  CHECK(nexar_comm_size(world, &size));
  float v[4] = {1, 2, 3, 4}, out[4];
  CHECK(nexar_allreduce(v, out, 4, NEXAR_FLOAT32, NEXAR_SUM, world));
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
