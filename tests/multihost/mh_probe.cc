// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the many-host tests: `mh_probe collect` runs point to point, barrier,
// allreduce and a split by host and checks every result; `mh_probe loop` runs collectives
// until one fails (a host cut off) and prints the error it got; `mh_probe bulk` runs
// allreduces of 4 B to 16 MiB, checks every element and prints the time of each size;
// `mh_probe rounds` runs 150 checked allreduces of 4 B to 256 KiB, each with a barrier
// (tools/fault_table.sh injects faults into them).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "nexar/nexar.h"

namespace {

int g_rank = -1;
nexar_comm_t g_world = nullptr;

#define MH_OK(call)                                                                                \
  do {                                                                                            \
    nexar_result_t r_ = (call);                                                                   \
    if (r_ != NEXAR_SUCCESS) {                                                                    \
      std::printf("rank %d: %s failed: %s (%s)\n", g_rank, #call, nexar_result_string(r_),          \
                  nexar_comm_last_error(g_world));                                                \
      std::fflush(stdout);                                                                        \
      std::exit(3);                                                                               \
    }                                                                                             \
  } while (0)
#define MH_CHECK(cond)                                                                             \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::printf("rank %d: check failed: %s\n", g_rank, #cond);                                  \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}

// nexrun's variable, else SLURM's (srun without nexrun).
int env_either(const char* nexar, const char* slurm) { return env_int(nexar) >= 0 ? env_int(nexar) : env_int(slurm); }

void collect(int size) {
  // Token around the ring: crosses every host boundary.
  int64_t token = g_rank == 0 ? 1000 : -1;
  if (g_rank == 0) {
    MH_OK(nexar_send(&token, 1, NEXAR_INT64, 1 % size, 7, g_world));
    MH_OK(nexar_recv(&token, 1, NEXAR_INT64, size - 1, 7, g_world));
    MH_CHECK(token == 1000 + size - 1);
  } else {
    MH_OK(nexar_recv(&token, 1, NEXAR_INT64, g_rank - 1, 7, g_world));
    ++token;
    MH_OK(nexar_send(&token, 1, NEXAR_INT64, (g_rank + 1) % size, 7, g_world));
  }
  MH_OK(nexar_barrier(g_world));
  // Allreduce, small and large (the large one takes the bandwidth algorithms).
  for (size_t count : {size_t{1}, size_t{1} << 18}) {
    std::vector<double> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = g_rank + static_cast<double>(i % 7);
    MH_OK(nexar_allreduce(in.data(), out.data(), count, NEXAR_FLOAT64, NEXAR_SUM, g_world));
    const double ranks = size * (size - 1) / 2.0;
    for (size_t i = 0; i < count; ++i) MH_CHECK(out[i] == ranks + size * static_cast<double>(i % 7));
  }
  // Split by host: each sub-communicator holds exactly this host's ranks.
  const int node = env_either("NEXAR_NODE_RANK", "SLURM_NODEID");
  int local_size = 0, local_rank = 0;
  MH_OK(nexar_comm_local_size(g_world, &local_size));
  MH_OK(nexar_comm_local_rank(g_world, &local_rank));
  nexar_comm_t host_comm = nullptr;
  MH_OK(nexar_comm_split(g_world, node, g_rank, &host_comm));
  int sub_size = 0, sub_local = 0;
  MH_OK(nexar_comm_size(host_comm, &sub_size));
  MH_OK(nexar_comm_local_size(host_comm, &sub_local));
  MH_CHECK(sub_size == local_size);
  MH_CHECK(sub_local == local_size);  // one host identity per namespace
  int one = 1, sum = 0;
  MH_OK(nexar_allreduce(&one, &sum, 1, NEXAR_INT32, NEXAR_SUM, host_comm));
  MH_CHECK(sum == local_size);
  MH_OK(nexar_comm_destroy(host_comm));
  // Across hosts: one rank per host (local rank 0) in its own communicator.
  nexar_comm_t leaders = nullptr;
  MH_OK(nexar_comm_split(g_world, local_rank == 0 ? 0 : 1, g_rank, &leaders));
  int lsize = 0;
  MH_OK(nexar_comm_size(leaders, &lsize));
  if (local_rank == 0) MH_CHECK(lsize == env_either("NEXAR_NUM_NODES", "SLURM_NNODES"));
  MH_OK(nexar_comm_destroy(leaders));
  MH_OK(nexar_barrier(g_world));
}

void bulk(int size) {
  for (size_t bytes : {size_t{4}, size_t{64} << 10, size_t{1} << 20, size_t{16} << 20}) {
    const size_t count = bytes / sizeof(int32_t);
    std::vector<int32_t> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = g_rank * 3 + static_cast<int32_t>(i % 101);
    const int rounds = bytes >= (size_t{16} << 20) ? 3 : 10;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < rounds; ++r) {
      std::fill(out.begin(), out.end(), -1);
      MH_OK(nexar_allreduce(in.data(), out.data(), count, NEXAR_INT32, NEXAR_SUM, g_world));
      for (size_t i = 0; i < count; ++i) MH_CHECK(out[i] == 3 * size * (size - 1) / 2 + size * static_cast<int32_t>(i % 101));
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (g_rank == 0) std::printf("bulk %zu bytes %.0f us\n", bytes, us / rounds);
  }
  MH_OK(nexar_barrier(g_world));
}

void announce_looping() {
  std::printf("looping rank %d pid=%d\n", g_rank, static_cast<int>(getpid()));
  std::fflush(stdout);
}

void rounds(int size) {
  for (int round = 0; round < 150; ++round) {
    const size_t count = size_t{1} << (round % 17);  // 1 to 65536 int32
    std::vector<int32_t> in(count), out(count, -1);
    for (size_t i = 0; i < count; ++i) in[i] = g_rank + round + static_cast<int32_t>(i % 13);
    MH_OK(nexar_allreduce(in.data(), out.data(), count, NEXAR_INT32, NEXAR_SUM, g_world));
    for (size_t i = 0; i < count; ++i)
      MH_CHECK(out[i] == size * (size - 1) / 2 + size * (round + static_cast<int32_t>(i % 13)));
    MH_OK(nexar_barrier(g_world));
    if (round == 0) announce_looping();
  }
}

void loop() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool announced = false;
  while (std::chrono::steady_clock::now() < until) {
    int one = 1, sum = 0;
    MH_OK(nexar_allreduce(&one, &sum, 1, NEXAR_INT32, NEXAR_SUM, g_world));
    if (!announced) {
      announce_looping();
      announced = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::printf("rank %d: no failure within 60 s\n", g_rank);
  std::exit(4);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "collect";
  g_rank = env_int("NEXAR_RANK");
  MH_OK(nexar_init(&g_world));
  int size = 0;
  MH_OK(nexar_comm_rank(g_world, &g_rank));
  MH_OK(nexar_comm_size(g_world, &size));
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::printf("hello rank %d of %d node %d local %d/%d\n", g_rank, size, env_int("NEXAR_NODE_RANK"),
              env_int("NEXAR_LOCAL_RANK"), env_int("NEXAR_LOCAL_SIZE"));
  std::fflush(stdout);
  if (mode == "collect") collect(size);
  else if (mode == "loop") loop();
  else if (mode == "bulk") bulk(size);
  else if (mode == "rounds") rounds(size);
  MH_OK(nexar_comm_destroy(g_world));
  std::printf("ok rank %d\n", g_rank);
  return 0;
}
