// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the shared-memory tests under nexrun.
//   clean     after init nothing of this job is left in /dev/shm
//   idle_cpu  rank 0 sleeps 1 s before a barrier; the others report the CPU time they
//             spent waiting in it
//   pingpong  4-byte ping-pong between ranks 0 and 1 while the others wait in a barrier;
//             rank 0 reports the median round trip
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../integration/probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

int g_size = 0;

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void clean() {
  const char* job = std::getenv("NEXAR_JOB_ID");
  PROBE_CHECK(job != nullptr);
  std::string prefix = "nexar-";
  for (const char* c = job; *c && prefix.size() < 6 + 16; ++c)
    if (std::isalnum(static_cast<unsigned char>(*c))) prefix.push_back(*c);
  PROBE_OK(nexar_barrier(g_world));
  int left = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) ++left;
    closedir(d);
  }
  std::printf("rank %d: clean left=%d\n", g_rank, left);
  PROBE_OK(nexar_barrier(g_world));
}

void idle_cpu() {
  PROBE_OK(nexar_barrier(g_world));
  if (g_rank == 0) std::this_thread::sleep_for(std::chrono::seconds(1));
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: idle cpu=%.3f wall=%.3f\n", g_rank, cpu_seconds() - c0, probe::seconds_since(t0));
}

void pingpong() {
  PROBE_OK(nexar_barrier(g_world));
  int32_t v = 0;
  std::vector<double> rtt;
  if (g_rank <= 1) {
    for (int i = 0; i < 2000; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      if (g_rank == 0) {
        PROBE_OK(nexar_send(&v, 1, NEXAR_INT32, 1, 1, g_world));
        PROBE_OK(nexar_recv(&v, 1, NEXAR_INT32, 1, 1, g_world));
      } else {
        PROBE_OK(nexar_recv(&v, 1, NEXAR_INT32, 0, 1, g_world));
        ++v;
        PROBE_OK(nexar_send(&v, 1, NEXAR_INT32, 0, 1, g_world));
      }
      rtt.push_back(probe::seconds_since(t0));
    }
    PROBE_CHECK(g_rank != 0 || v == 2000);
  }
  PROBE_OK(nexar_barrier(g_world));
  if (g_rank == 0) {
    std::nth_element(rtt.begin(), rtt.begin() + static_cast<long>(rtt.size() / 2), rtt.end());
    std::printf("rank 0: pingpong median_us=%.1f\n", rtt[rtt.size() / 2] * 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: shm_probe clean|idle_cpu|pingpong\n");
    return 2;
  }
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  const std::string s = argv[1];
  if (s == "clean") clean();
  else if (s == "idle_cpu") idle_cpu();
  else if (s == "pingpong") pingpong();
  else {
    std::fprintf(stderr, "unknown scenario %s\n", s.c_str());
    return 2;
  }
  PROBE_OK(nexar_comm_destroy(g_world));
  return 0;
}
