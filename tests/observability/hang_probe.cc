// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the hang-report tests: `hang_probe <sleeper> <seconds> <marker>` runs
// six allreduces, then rank <sleeper> sleeps <seconds> in its own code (not in nexar)
// before the seventh while the others wait in it. Prints "sleeping <rank>" before the
// sleep and "done <rank>" or "error <rank>: ..." after the seventh.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "nexar/nexar.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: hang_probe <sleeper> <seconds> [marker]\n");
    return 2;
  }
  const int sleeper = std::atoi(argv[1]);
  const unsigned seconds = static_cast<unsigned>(std::atoi(argv[2]));
  nexar_comm_t world = nullptr;
  if (nexar_init(&world) != NEXAR_SUCCESS) return 4;
  int rank = 0;
  nexar_comm_rank(world, &rank);
  float x = 1;
  for (int i = 0; i < 6; ++i) {
    if (nexar_allreduce(&x, &x, 1, NEXAR_FLOAT32, NEXAR_SUM, world) != NEXAR_SUCCESS) return 5;
  }
  std::printf("ready %d\n", rank);
  std::fflush(stdout);
  if (rank == sleeper) {
    std::printf("sleeping %d\n", rank);
    std::fflush(stdout);
    sleep(seconds);
  }
  nexar_result_t r = nexar_allreduce(&x, &x, 1, NEXAR_FLOAT32, NEXAR_SUM, world);
  if (r != NEXAR_SUCCESS) {
    std::printf("error %d: %s\n", rank, nexar_result_string(r));
    std::fflush(stdout);
    nexar_comm_destroy(world);
    return 3;
  }
  std::printf("done %d\n", rank);
  std::fflush(stdout);
  return nexar_comm_destroy(world) == NEXAR_SUCCESS ? 0 : 6;
}
