// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar-recovery-bench: how long recovery from a lost rank takes, three ways (argv[1]):
//   shrink (default)  under `nexrun --enable-recovery -np N`: the survivors revoke, shrink and run
//                     one allreduce on the shrunk communicator;
//   rebuild           under `nexrun --respawn 1 -np N`: the survivors rebuild the world with
//                     nexrun's replacement and run one allreduce on it (the full size);
//   gang FILE         under `nexrun --max-restarts 1 -np N`: attempt 0 loses the rank and
//                     is stopped; attempt 1 starts every rank again (FILE carries the moment
//                     of the kill across attempts).
// The last rank is SIGKILLed inside an allreduce at a moment every rank knows in advance
// (CLOCK_MONOTONIC is the host's). Rank 0 afterwards prints one line: np, and the
// milliseconds from the kill to (the slowest survivor's) first error, to the new
// communicator, to the first good allreduce on it. tools/recovery_bench.sh prints the table.
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "nexar/nexar.h"

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void must(nexar_result_t r, nexar_comm_t c, const char* what) {
  if (r == NEXAR_SUCCESS) return;
  std::fprintf(stderr, "%s: %s (%s)\n", what, nexar_result_string(r), nexar_comm_last_error(c));
  std::exit(1);
}

float g_x = 1, g_y = 0;

// Warms up, agrees on the moment the last rank dies (300 ms ahead; rank 0 writes it to
// stamp, if any, before it comes), arms its death and runs allreduces until one fails.
// Returns the moment of the kill; *t_error: the failure.
int64_t lose_last_rank(nexar_comm_t world, int rank, int size, const char* stamp, int64_t* t_error) {
  for (int i = 0; i < 100; ++i) must(nexar_allreduce(&g_x, &g_y, 1, NEXAR_FLOAT32, NEXAR_SUM, world), world, "warm-up");
  int64_t kill_at = now_ns() + 300 * 1000000LL;
  must(nexar_broadcast(&kill_at, 1, NEXAR_INT64, size - 1, world), world, "broadcast");
  if (stamp && rank == 0)
    if (FILE* f = std::fopen(stamp, "w")) {
      std::fprintf(f, "%lld\n", static_cast<long long>(kill_at));
      std::fclose(f);
    }
  if (rank == size - 1)
    std::thread([kill_at] {
      std::this_thread::sleep_for(std::chrono::nanoseconds(kill_at - now_ns()));
      ::raise(SIGKILL);
    }).detach();
  while (nexar_allreduce(&g_x, &g_y, 1, NEXAR_FLOAT32, NEXAR_SUM, world) == NEXAR_SUCCESS) {
  }
  *t_error = now_ns();
  return kill_at;
}

// One allreduce on the recovered communicator (its sum must be its size), then the worst
// times over its members; rank 0 prints them. Members without times pass zeros.
void report(nexar_comm_t c, const char* how, const int64_t times[3]) {
  int n = 0, r = 0;
  nexar_comm_size(c, &n);
  nexar_comm_rank(c, &r);
  must(nexar_allreduce(&g_x, &g_y, 1, NEXAR_FLOAT32, NEXAR_SUM, c), c, "allreduce after recovery");
  const int64_t t_good = now_ns();
  if (g_y != static_cast<float>(n)) {
    std::fprintf(stderr, "allreduce after recovery gave %g, expected %d\n", static_cast<double>(g_y), n);
    std::exit(1);
  }
  int64_t mine[3] = {times[0], times[1], times[2] ? t_good - times[2] : 0}, worst[3];
  must(nexar_allreduce(mine, worst, 3, NEXAR_INT64, NEXAR_MAX, c), c, "allreduce of the times");
  if (r != 0) return;
  const int np = n + (how[0] == 's' ? 1 : 0);  // a shrunk communicator lacks the lost rank
  if (worst[1] == 0)  // a gang restart: only the time to the first good allreduce
    std::printf("np %d  %s  first good allreduce %.1f ms\n", np, how, worst[2] / 1e6);
  else
    std::printf("np %d  error %.1f ms  %s %.1f ms  first good allreduce %.1f ms\n", np, worst[0] / 1e6, how,
                worst[1] / 1e6, worst[2] / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "shrink";
  const char* count = std::getenv("NEXAR_RESTART_COUNT");
  const int incarnation = count ? std::atoi(count) : 0;
  if (mode != "shrink" && mode != "rebuild" && !(mode == "gang" && argc > 2)) {
    std::fprintf(stderr, "usage: nexar-recovery-bench [shrink | rebuild | gang FILE]\n");
    return 2;
  }
  nexar_comm_t world = nullptr;
  must(nexar_init(&world), nullptr, "nexar_init");
  int rank = 0, size = 0;
  nexar_comm_rank(world, &rank);
  nexar_comm_size(world, &size);
  if (size < 2) {
    std::fprintf(stderr, "nexar-recovery-bench needs at least 2 ranks\n");
    return 2;
  }
  if (mode == "gang" && incarnation > 0) {  // attempt 1: the whole job started again
    int64_t kill_at = 0;
    if (FILE* f = std::fopen(argv[2], "r")) {
      if (std::fscanf(f, "%lld", reinterpret_cast<long long*>(&kill_at)) != 1) kill_at = 0;
      std::fclose(f);
    }
    must(nexar_broadcast(&kill_at, 1, NEXAR_INT64, 0, world), world, "broadcast");
    const int64_t times[3] = {0, 0, kill_at};
    report(world, "restarted", times);
    nexar_comm_destroy(world);
    return 0;
  }
  if (mode == "rebuild" && incarnation > 0) {  // the replacement: nexar_init gave the rebuilt world
    const int64_t none[3] = {0, 0, 0};
    report(world, "rebuilt", none);
    nexar_comm_destroy(world);
    return 0;
  }
  int64_t t_error = 0;
  const int64_t kill_at = lose_last_rank(world, rank, size, mode == "gang" ? argv[2] : nullptr, &t_error);
  if (mode == "gang") return 1;  // nexrun stops the attempt and starts the next
  nexar_comm_t recovered = nullptr;
  if (mode == "rebuild") {
    must(nexar_comm_rebuild(world, &recovered), world, "nexar_comm_rebuild");
  } else {
    nexar_comm_revoke(world);
    must(nexar_comm_shrink(world, &recovered), world, "nexar_comm_shrink");
  }
  const int64_t times[3] = {t_error - kill_at, now_ns() - kill_at, kill_at};
  report(recovered, mode == "rebuild" ? "rebuilt" : "shrunk", times);
  nexar_comm_destroy(recovered);
  nexar_comm_destroy(world);
  return 0;
}
