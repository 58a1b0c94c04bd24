// nexar-recovery-bench: how long in-place recovery takes. Run under
// `nexrun --enable-recovery -np N`; the last rank is SIGKILLed inside an allreduce at a moment
// every rank knows in advance (CLOCK_MONOTONIC is the host's), the survivors notice,
// revoke, shrink and run one allreduce on the shrunk communicator. The lowest survivor
// prints one line: np, and the milliseconds from the kill to (the slowest survivor's)
// first error, to the shrunk communicator, to the first good allreduce on it.
// tools/recovery_bench.sh runs it for several sizes and prints the table.
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

}  // namespace

int main() {
  nexar_comm_t world = nullptr;
  must(nexar_init(&world), nullptr, "nexar_init");
  int rank = 0, size = 0;
  nexar_comm_rank(world, &rank);
  nexar_comm_size(world, &size);
  if (size < 2) {
    std::fprintf(stderr, "nexar-recovery-bench needs at least 2 ranks (nexrun --enable-recovery -np N)\n");
    return 2;
  }
  const int victim = size - 1;
  float x = 1, y = 0;
  for (int i = 0; i < 100; ++i) must(nexar_allreduce(&x, &y, 1, NEXAR_FLOAT32, NEXAR_SUM, world), world, "warm-up");
  int64_t kill_at = now_ns() + 300 * 1000000LL;
  must(nexar_broadcast(&kill_at, 1, NEXAR_INT64, victim, world), world, "broadcast");
  if (rank == victim)
    std::thread([kill_at] {
      std::this_thread::sleep_for(std::chrono::nanoseconds(kill_at - now_ns()));
      ::raise(SIGKILL);
    }).detach();
  while (nexar_allreduce(&x, &y, 1, NEXAR_FLOAT32, NEXAR_SUM, world) == NEXAR_SUCCESS) {
  }
  const int64_t t_error = now_ns();
  nexar_comm_revoke(world);
  nexar_comm_t shrunk = nullptr;
  must(nexar_comm_shrink(world, &shrunk), world, "nexar_comm_shrink");
  const int64_t t_shrunk = now_ns();
  must(nexar_allreduce(&x, &y, 1, NEXAR_FLOAT32, NEXAR_SUM, shrunk), shrunk, "allreduce after shrink");
  const int64_t t_good = now_ns();
  if (y != static_cast<float>(size - 1)) {
    std::fprintf(stderr, "allreduce after shrink gave %g, expected %d\n", static_cast<double>(y), size - 1);
    return 1;
  }
  int64_t mine[3] = {t_error - kill_at, t_shrunk - kill_at, t_good - kill_at}, worst[3];
  must(nexar_allreduce(mine, worst, 3, NEXAR_INT64, NEXAR_MAX, shrunk), shrunk, "allreduce of the times");
  int new_rank = -1;
  nexar_comm_rank(shrunk, &new_rank);
  if (new_rank == 0)
    std::printf("np %d  error %.1f ms  shrunk %.1f ms  first good allreduce %.1f ms\n", size, worst[0] / 1e6,
                worst[1] / 1e6, worst[2] / 1e6);
  nexar_comm_destroy(shrunk);
  nexar_comm_destroy(world);
  return 0;
}
