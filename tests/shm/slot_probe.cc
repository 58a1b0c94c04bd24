// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the shared-slot collectives (NEXAR_ALGO forces which), under nexrun.
//   counts    allreduce at counts 0, 1, < p, odd, the inline limit and limit + 1 (4096 B),
//             1 MiB + odd, in and out of place, int64 sum / float64 max / uint8 min /
//             float32 avg, checked against values computed here; float32 sums of
//             non-integers are bit-identical on every rank; broadcast and barrier too
// SLOT_MAX_BYTES in the environment skips larger payloads.
//   bcast     broadcasts from roots 0, p/2 and p-1 at counts 0, 1, p, 2p+1, 1025 and
//             1 Mi + 3 (int32), each element distinct, so a block landing at the wrong
//             offset fails; the root rewrites its buffer right after each call, so a
//             root returning while a reader still reads it fails too
//   storm     10000 small allreduces (2000 under sanitizers) alternating with allgathers (p2p algorithms)
//   mismatch:count|dtype|op  rank 0 disagrees; every rank gets NEXAR_ERR_MISMATCH
//   late      10 allreduces of 1 MiB that the last rank enters 20 ms late: the others'
//             waits are long, so (with more ranks than cores) they sleep at once; each
//             call's longest time on the others is printed (a missed ring would
//             sleep to the 1 s re-check); results exact
//   kill      the last rank dies while the others are in an allreduce: they get an
//             error within seconds, never a hang
//   split     two interleaved halves (split by rank parity) and a dup of each, alive
//             together, allreduce exactly in each; every staging segment mapped for them
//             is gone once they are destroyed (STAGE_EXPECTED: each child mapped
//             one); then 12 split/destroy rounds (more than
//             the slot areas: a destroyed communicator's area is lent again)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../integration/probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {
int g_size = 0;

uint64_t fnv(const void* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  return h;
}

void same_everywhere(const void* p, size_t n) {
  const uint64_t h = fnv(p, n);
  std::vector<uint64_t> all(static_cast<size_t>(g_size));
  PROBE_OK(nexar_allgather(&h, all.data(), 1, NEXAR_UINT64, g_world));
  for (uint64_t v : all) PROBE_CHECK(v == h);
}

// SLOT_MAX_BYTES: skip payloads above it (forced shm_flat carries at most 1 MiB inline).
bool fits(size_t bytes) {
  const char* m = std::getenv("SLOT_MAX_BYTES");
  return !m || bytes <= std::strtoull(m, nullptr, 10);
}

template <class T, class In, class Want>
void check_one(size_t count, nexar_dtype_t dt, nexar_op_t op, bool in_place, In in, Want want) {
  if (!fits(count * sizeof(T))) return;
  std::vector<T> send(count), recv(count, T(99));
  for (size_t i = 0; i < count; ++i) send[i] = in(g_rank, i);
  if (in_place) recv = send;
  PROBE_OK(nexar_allreduce(in_place ? recv.data() : send.data(), recv.data(), count, dt, op, g_world));
  for (size_t i = 0; i < count; ++i)
    if (recv[i] != want(i)) {
      std::fprintf(stderr, "rank %d: count %zu op %d in_place %d: [%zu] = %g, want %g\n", g_rank, count, op, in_place,
                   i, static_cast<double>(recv[i]), static_cast<double>(want(i)));
      std::exit(1);
    }
}

void counts() {
  const int p = g_size;
  const std::vector<size_t> sizes = {0, 1, static_cast<size_t>(p > 1 ? p - 1 : 1), 7, 511, 512, 513, 1024, 1025,
                                     (1u << 17) + 3, (1u << 18) + 1};
  for (size_t count : sizes)
    for (bool ip : {false, true}) {
      // int64 sum (8-byte: 512 elements is the 4096-byte limit)
      check_one<int64_t>(count, NEXAR_INT64, NEXAR_SUM, ip, [](int r, size_t i) { return int64_t(r + 1) * int64_t(i + 1); },
                         [&](size_t i) { return int64_t(p) * (p + 1) / 2 * int64_t(i + 1); });
      // float32 (4-byte: 1024 elements is the limit) average of exact integers
      check_one<float>(count, NEXAR_FLOAT32, NEXAR_AVG, ip, [](int r, size_t i) { return float(r * 2 + i % 5); },
                       [&](size_t i) { return float(p - 1 + i % 5); });
      check_one<double>(count, NEXAR_FLOAT64, NEXAR_MAX, ip, [](int r, size_t i) { return double((r * 31 + i) % 17); },
                        [&](size_t i) {
                          double m = 0;
                          for (int r = 0; r < p; ++r) m = std::max(m, double((r * 31 + i) % 17));
                          return m;
                        });
      check_one<uint8_t>(count, NEXAR_UINT8, NEXAR_MIN, ip, [](int r, size_t i) { return uint8_t(200 - r - i % 3); },
                         [&](size_t i) { return uint8_t(200 - (p - 1) - i % 3); });
    }
  // Sums of non-integers round differently in other orders: every rank must hold the same bits.
  for (size_t count : {size_t{1000}, size_t{1025}, size_t{(1u << 18) - 1}, size_t{(1u << 18) + 1}}) {
    if (!fits(count * sizeof(float))) continue;
    std::vector<float> x(count), y(count);
    for (size_t i = 0; i < count; ++i) x[i] = 1.0f / float(g_rank + 3) + float(i) * 1e-3f;
    PROBE_OK(nexar_allreduce(x.data(), y.data(), count, NEXAR_FLOAT32, NEXAR_SUM, g_world));
    same_everywhere(y.data(), y.size() * sizeof(float));
  }
  for (size_t count : {size_t{0}, size_t{3}, size_t{1024}}) {
    std::vector<int32_t> b(count);
    for (size_t i = 0; i < count; ++i) b[i] = g_rank == p - 1 ? int32_t(i * 7) : -1;
    PROBE_OK(nexar_broadcast(b.data(), count, NEXAR_INT32, p - 1, g_world));
    for (size_t i = 0; i < count; ++i) PROBE_CHECK(b[i] == int32_t(i * 7));
  }
  PROBE_OK(nexar_barrier(g_world));
}

void bcast() {
  const int p = g_size;
  const std::vector<size_t> sizes = {0, 1, size_t(p), size_t(2 * p + 1), 1025, (size_t{1} << 20) + 3};
  std::vector<int32_t> b;
  for (int root : {0, p / 2, p - 1})
    for (size_t count : sizes) {
      const auto value = [&](size_t i) { return int32_t(root * 1000003 + count + i); };
      b.assign(count, -1);
      if (g_rank == root)
        for (size_t i = 0; i < count; ++i) b[i] = value(i);
      PROBE_OK(nexar_broadcast(b.data(), count, NEXAR_INT32, root, g_world));
      for (size_t i = 0; i < count; ++i)
        if (b[i] != value(i)) {
          std::fprintf(stderr, "rank %d: broadcast root %d count %zu: [%zu] = %d, want %d\n", g_rank, root, count, i,
                       b[i], value(i));
          std::exit(1);
        }
      std::fill(b.begin(), b.end(), -7);  // the root's next call must not be what a reader still reads
    }
}

void storm() {
#ifdef NEXAR_TEST_SANITIZED
  const int iterations = 2000;  // half of shm_slots' time under ASan went to the 10000
#else
  const int iterations = 10000;
#endif
  std::vector<int32_t> all(static_cast<size_t>(g_size));
  for (int it = 0; it < iterations; ++it) {
    int32_t v = g_rank + it, s = 0;
    PROBE_OK(nexar_allreduce(&v, &s, 1, NEXAR_INT32, NEXAR_SUM, g_world));
    PROBE_CHECK(s == g_size * it + g_size * (g_size - 1) / 2);
    if (it % 2 == 0) {
      PROBE_OK(nexar_allgather(&v, all.data(), 1, NEXAR_INT32, g_world));
      for (int r = 0; r < g_size; ++r) PROBE_CHECK(all[static_cast<size_t>(r)] == r + it);
    }
  }
}

void mismatch(const std::string& what) {
  size_t count = 4;
  nexar_dtype_t dt = NEXAR_FLOAT32;
  nexar_op_t op = NEXAR_SUM;
  if (g_rank == 0) {
    if (what == "count") count = 5;
    else if (what == "dtype") dt = NEXAR_INT32;
    else op = NEXAR_MAX;
  }
  std::vector<double> buf(8, 1.0);
  const nexar_result_t r = nexar_allreduce(buf.data(), buf.data(), count, dt, op, g_world);
  const std::string msg = nexar_comm_last_error(g_world);
  std::printf("rank %d: mismatch %s: %s\n", g_rank, nexar_result_string(r), msg.c_str());
  PROBE_CHECK(r == NEXAR_ERR_MISMATCH);
  PROBE_CHECK(msg.find("allreduce") != std::string::npos && msg.find("world rank") != std::string::npos);
  nexar_comm_destroy(g_world);
  std::exit(0);
}

void kill_one() {
  PROBE_OK(nexar_barrier(g_world));
  std::vector<float> x(std::getenv("BIG") ? (1u << 18) : 4, 1.0f);
  if (g_rank == g_size - 1) {
    usleep(300 * 1000);  // the others are waiting in the allreduce by now
    raise(SIGKILL);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const nexar_result_t r = nexar_allreduce(x.data(), x.data(), x.size(), NEXAR_FLOAT32, NEXAR_SUM, g_world);
  std::printf("rank %d: kill %s after %.2f s: %s\n", g_rank, nexar_result_string(r), probe::seconds_since(t0),
              nexar_comm_last_error(g_world));
  PROBE_CHECK(r != NEXAR_SUCCESS && r != NEXAR_ERR_TIMEOUT);
  std::fflush(stdout);
  nexar_comm_destroy(g_world);
  std::exit(0);
}

void late() {
  std::vector<float> x(1u << 18);
  double worst = 0;
  for (int round = 0; round < 10; ++round) {
    std::fill(x.begin(), x.end(), static_cast<float>(g_rank + round));
    if (g_rank == g_size - 1) usleep(20 * 1000);
    const auto t0 = std::chrono::steady_clock::now();
    PROBE_OK(nexar_allreduce(x.data(), x.data(), x.size(), NEXAR_FLOAT32, NEXAR_SUM, g_world));
    worst = std::max(worst, probe::seconds_since(t0));
    const float want = static_cast<float>(g_size * (g_size - 1) / 2 + g_size * round);
    for (float v : x) PROBE_CHECK(v == want);
  }
  if (g_rank != g_size - 1) std::printf("rank %d: late max_ms=%.1f\n", g_rank, worst * 1e3);
}

// Mappings of staging segments in this process (/proc/self/maps names the memfd).
int stage_mappings() {
  FILE* f = std::fopen("/proc/self/maps", "r");
  PROBE_CHECK(f != nullptr);
  char line[512];
  int n = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strstr(line, "memfd:nexar-stage")) ++n;
  std::fclose(f);
  return n;
}

// An allreduce of count int64 on c checked exactly (SLOT_MAX_BYTES skips larger ones).
void allreduce_exact(nexar_comm_t c, size_t count, int64_t salt) {
  if (!fits(count * sizeof(int64_t))) return;
  int r = 0, n = 0;
  PROBE_OK(nexar_comm_rank(c, &r));
  PROBE_OK(nexar_comm_size(c, &n));
  std::vector<int64_t> x(count), y(count, -1);
  for (size_t i = 0; i < count; ++i) x[i] = (r + 1) * int64_t(i + 1) + salt;
  PROBE_OK(nexar_allreduce(x.data(), y.data(), count, NEXAR_INT64, NEXAR_SUM, c));
  for (size_t i = 0; i < count; ++i) PROBE_CHECK(y[i] == int64_t(n) * (n + 1) / 2 * int64_t(i + 1) + n * salt);
}

void split_groups() {
  allreduce_exact(g_world, (1u << 17) + 3, 1);  // the world's own segment, if it has one, first
  const int before = stage_mappings();
  nexar_comm_t half = nullptr, twin = nullptr;
  PROBE_OK(nexar_comm_split(g_world, g_rank % 2, g_rank, &half));
  PROBE_OK(nexar_comm_dup(half, &twin));
  for (size_t count : {size_t{1}, size_t{1000}, size_t{(1u << 17) + 3}}) {
    allreduce_exact(half, count, 5);
    allreduce_exact(twin, count, -3);
    allreduce_exact(g_world, count, 1);
  }
  const int with = stage_mappings();
  std::printf("rank %d: staging segments mapped %d before, %d with the children\n", g_rank, before, with);
  if (std::getenv("STAGE_EXPECTED")) PROBE_CHECK(with == before + 2);  // the half's and the twin's
  PROBE_OK(nexar_comm_destroy(twin));
  PROBE_OK(nexar_comm_destroy(half));
  PROBE_CHECK(stage_mappings() == before);
  for (int round = 0; round < 12; ++round) {
    PROBE_OK(nexar_comm_split(g_world, (g_rank + round) % 2, g_rank, &half));
    allreduce_exact(half, 1000, round);
    PROBE_OK(nexar_comm_destroy(half));
  }
  PROBE_CHECK(stage_mappings() == before);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: slot_probe counts|bcast|storm|mismatch:WHAT|late|kill|split\n");
    return 2;
  }
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  const std::string s = argv[1];
  if (s == "counts") counts();
  else if (s == "bcast") bcast();
  else if (s == "storm") storm();
  else if (s.rfind("mismatch:", 0) == 0) mismatch(s.substr(9));
  else if (s == "kill") kill_one();
  else if (s == "late") late();
  else if (s == "split") split_groups();
  else {
    std::fprintf(stderr, "unknown scenario %s\n", s.c_str());
    return 2;
  }
  std::printf("rank %d: %s ok\n", g_rank, s.c_str());
  PROBE_OK(nexar_comm_destroy(g_world));
  return 0;
}
