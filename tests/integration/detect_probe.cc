// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the failure-detection tests: `detect_probe kill|stop` under nexrun
// --no-kill. The last rank (the victim) SIGKILLs or SIGSTOPs itself once every other rank
// waits in a receive from it; each survivor prints how long it took to learn:
//   "rank R: lost NEXAR_ERR_PEER_LOST after S s: <message>"
// then (stop) rank 0 sends the victim SIGCONT, and the survivors run allreduces on a
// communicator of their own for a while, checking every result:
//   "rank R: survivors ok (N rounds)"
// A victim that resumes (it was not killed) tries to receive from rank 0 and prints
//   "rank V: resumed, recv <result> after S s"
// exiting 0 if that failed (its peers dropped it) and 4 if it got through.
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

int g_size = 0;

void victim(bool kill) {
  const int32_t pid = static_cast<int32_t>(::getpid());
  for (int r = 0; r < g_size - 1; ++r) PROBE_OK(nexar_send(&pid, 1, NEXAR_INT32, r, 9, g_world));
  int32_t ack = 0;
  for (int r = 0; r < g_size - 1; ++r) PROBE_OK(nexar_recv(&ack, 1, NEXAR_INT32, NEXAR_ANY_SOURCE, 8, g_world));
  std::fflush(stdout);
  ::raise(kill ? SIGKILL : SIGSTOP);
  const auto t0 = std::chrono::steady_clock::now();
  int32_t v = 0;
  nexar_result_t r = nexar_recv(&v, 1, NEXAR_INT32, 0, 2, g_world);
  std::printf("rank %d: resumed, recv %s after %.2f s\n", g_rank, nexar_result_string(r), probe::seconds_since(t0));
  std::fflush(stdout);
  std::_Exit(r == NEXAR_SUCCESS ? 4 : 0);
}

void survivor(nexar_comm_t alive, bool stop) {
  const int v = g_size - 1;
  int32_t pid = 0, ack = 1;
  PROBE_OK(nexar_recv(&pid, 1, NEXAR_INT32, v, 9, g_world));
  PROBE_OK(nexar_send(&ack, 1, NEXAR_INT32, v, 8, g_world));
  const auto t0 = std::chrono::steady_clock::now();
  int32_t x = 0;
  nexar_result_t r = nexar_recv(&x, 1, NEXAR_INT32, v, 1, g_world);
  std::printf("rank %d: lost %s after %.2f s: %s\n", g_rank, nexar_result_string(r), probe::seconds_since(t0),
              nexar_comm_last_error(g_world));
  std::fflush(stdout);
  PROBE_CHECK(r == NEXAR_ERR_PEER_LOST);
  if (stop && g_rank == 0) ::kill(static_cast<pid_t>(pid), SIGCONT);
  // Whatever the victim does now, the survivors' own communicator works, results exact.
  // Rank 0's clock says when to stop, carried in each round's sum.
  const auto t1 = std::chrono::steady_clock::now();
  const int64_t n = g_size - 1;
  int rounds = 0;
  for (bool done = false; !done; ++rounds) {
    int64_t in[2] = {g_rank + rounds, g_rank == 0 && probe::seconds_since(t1) > 1.5}, out[2] = {-1, -1};
    PROBE_OK(nexar_allreduce(in, out, 2, NEXAR_INT64, NEXAR_SUM, alive));
    PROBE_CHECK(out[0] == n * (n - 1) / 2 + n * rounds);
    done = out[1] != 0;
  }
  std::printf("rank %d: survivors ok (%d rounds)\n", g_rank, rounds);
  PROBE_OK(nexar_comm_destroy(alive));
  nexar_comm_destroy(g_world);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "kill" && mode != "stop") {
    std::fprintf(stderr, "usage: detect_probe kill|stop\n");
    return 2;
  }
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  PROBE_CHECK(g_size >= 2);
  const bool is_victim = g_rank == g_size - 1;
  nexar_comm_t alive = nullptr;
  PROBE_OK(nexar_comm_split(g_world, is_victim ? NEXAR_UNDEFINED : 0, g_rank, &alive));
  PROBE_OK(nexar_barrier(g_world));
  if (is_victim)
    victim(mode == "kill");
  else
    survivor(alive, mode == "stop");
  return 0;
}
