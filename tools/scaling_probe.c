// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* The program of the scaling benchmark (tools/scaling_bench.sh): times nexar_init, the
 * first allreduce (with NEXAR_CONNECT=lazy it makes the connections its algorithm uses)
 * and a second one, and reads the resident memory after init and after the allreduces.
 * Each rank prints one line:
 *   scaling rank R init_s I first_s F second_s S rss_init_kb A rss_end_kb B
 * and exits 0 when both sums equal the world size. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nexar/nexar.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_kb(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) sscanf(line + 6, "%ld", &kb);
  fclose(f);
  return kb;
}

int main(void) {
  nexar_comm_t world;
  double t0 = now_s();
  if (nexar_init(&world) != NEXAR_SUCCESS) return 1;
  double t1 = now_s();
  long rss_init = rss_kb();
  int rank = 0, size = 0;
  float one = 1, sum1 = 0, sum2 = 0;
  if (nexar_comm_rank(world, &rank) != NEXAR_SUCCESS || nexar_comm_size(world, &size) != NEXAR_SUCCESS) return 1;
  if (nexar_allreduce(&one, &sum1, 1, NEXAR_FLOAT32, NEXAR_SUM, world) != NEXAR_SUCCESS) return 1;
  double t2 = now_s();
  if (nexar_allreduce(&one, &sum2, 1, NEXAR_FLOAT32, NEXAR_SUM, world) != NEXAR_SUCCESS) return 1;
  double t3 = now_s();
  printf("scaling rank %d init_s %.4f first_s %.4f second_s %.4f rss_init_kb %ld rss_end_kb %ld\n", rank, t1 - t0,
         t2 - t1, t3 - t2, rss_init, rss_kb());
  fflush(stdout);
  if (nexar_comm_destroy(world) != NEXAR_SUCCESS) return 1;
  return sum1 == (float)size && sum2 == (float)size ? 0 : 1;
}
