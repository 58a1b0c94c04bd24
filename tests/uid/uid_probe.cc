// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program started WITHOUT nexrun (tests/uid/uid_test.cc starts several): it joins
// with nexar_init_rank, the id read from a file that one of them (--make) writes with
// nexar_get_unique_id.
//   uid_probe <id file> <rank> <size> <scenario> [--make]
// Scenarios: "coll" (collectives and point to point, exact), "init" (join, then leave),
// "nexar_init" (nexar_init instead; the id file is unused).
// A failed nexar_init_rank prints "rank R: init failed: <result>: <detail>" and exits 3.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "integration/probe_util.h"

namespace {

bool write_id(const std::string& path, const nexar_unique_id_t& id) {
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(id.bytes, 1, sizeof(id.bytes), f) == sizeof(id.bytes);
  return std::fclose(f) == 0 && ok && std::rename(tmp.c_str(), path.c_str()) == 0;
}

// Waits (bounded) for the maker's file.
bool read_id(const std::string& path, nexar_unique_id_t* id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      const size_t n = std::fread(id->bytes, 1, sizeof(id->bytes), f);
      std::fclose(f);
      if (n == sizeof(id->bytes)) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Prints what each call delivered (hashes of the buffers, the values); uid_test works out
// what it must be.
void collectives(nexar_comm_t w, int rank, int size) {
  // all-reduce: sums and maxima.
  std::vector<int64_t> v(1000), sum(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i) * (rank + 1);
  PROBE_OK(nexar_allreduce(v.data(), sum.data(), v.size(), NEXAR_INT64, NEXAR_SUM, w));
  double mine = rank + 0.5, best = 0;
  PROBE_OK(nexar_allreduce(&mine, &best, 1, NEXAR_FLOAT64, NEXAR_MAX, w));
  // broadcast from the last rank, 1 MiB.
  std::vector<unsigned char> b(1 << 20);
  const int root = size - 1;
  for (size_t i = 0; i < b.size(); ++i) b[i] = rank == root ? probe::pattern(root, 1, i) : 0;
  PROBE_OK(nexar_broadcast(b.data(), b.size(), NEXAR_UINT8, root, w));
  // all-gather.
  int32_t me = 100 + rank;
  std::vector<int32_t> all(static_cast<size_t>(size));
  PROBE_OK(nexar_allgather(&me, all.data(), 1, NEXAR_INT32, w));
  std::string gathered;
  for (int32_t x : all) gathered += (gathered.empty() ? "" : ",") + std::to_string(x);
  // point to point around the ring, 64 KiB each way.
  uint64_t ring = 0;
  if (size > 1) {
    std::vector<unsigned char> out(65536), in(65536);
    for (size_t i = 0; i < out.size(); ++i) out[i] = probe::pattern(rank, 2, i);
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    nexar_request_t reqs[2];
    PROBE_OK(nexar_irecv(in.data(), in.size(), NEXAR_UINT8, prev, 7, w, &reqs[0]));
    PROBE_OK(nexar_isend(out.data(), out.size(), NEXAR_UINT8, next, 7, w, &reqs[1]));
    PROBE_OK(nexar_waitall(2, reqs));
    ring = probe::fnv1a(in.data(), in.size());
  }
  PROBE_OK(nexar_barrier(w));
  std::printf("rank %d: coll sum fnv %016llx max %.1f broadcast fnv %016llx allgather %s ring fnv %016llx\n", rank,
              static_cast<unsigned long long>(probe::fnv1a(reinterpret_cast<const unsigned char*>(sum.data()),
                                                           sum.size() * sizeof(int64_t))),
              best, static_cast<unsigned long long>(probe::fnv1a(b.data(), b.size())), gathered.c_str(),
              static_cast<unsigned long long>(ring));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: uid_probe <id file> <rank> <size> <scenario> [--make]\n");
    return 2;
  }
  const std::string path = argv[1], scenario = argv[4];
  const int rank = std::atoi(argv[2]), size = std::atoi(argv[3]);
  const bool make = argc > 5 && std::string(argv[5]) == "--make";
  probe::g_rank = rank;
  if (scenario == "nexar_init") {  // the way without nexrun is nexar_init_rank, not this
    nexar_comm_t w = nullptr;
    nexar_result_t r = nexar_init(&w);
    if (r != NEXAR_SUCCESS) {
      std::printf("nexar_init failed: %s: %s\n", nexar_result_string(r), nexar_comm_last_error(nullptr));
      return 3;
    }
    PROBE_OK(nexar_comm_destroy(w));
    std::printf("nexar_init ok\n");
    return 0;
  }
  nexar_unique_id_t id;
  if (make) {
    PROBE_OK(nexar_get_unique_id(&id));
    PROBE_CHECK(write_id(path, id));
  } else if (!read_id(path, &id)) {
    std::fprintf(stderr, "rank %d: no id in %s\n", rank, path.c_str());
    return 2;
  }
  nexar_comm_t w = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  nexar_result_t r = nexar_init_rank(&id, rank, size, &w);
  if (r != NEXAR_SUCCESS) {
    PROBE_CHECK(w == nullptr);
    std::printf("rank %d: init failed: %s: %s (after %.1f s)\n", rank, nexar_result_string(r),
                nexar_comm_last_error(nullptr), probe::seconds_since(t0));
    std::fflush(stdout);
    return 3;
  }
  probe::g_world = w;
  const double init_s = probe::seconds_since(t0);
  int got_rank = -1, got_size = -1;
  PROBE_OK(nexar_comm_rank(w, &got_rank));
  PROBE_OK(nexar_comm_size(w, &got_size));
  PROBE_CHECK(got_rank == rank && got_size == size);
  if (scenario == "coll") collectives(w, rank, size);
  PROBE_OK(nexar_comm_destroy(w));
  std::printf("rank %d of %d: %s ok (nexar_init_rank took %.3f s)\n", rank, size, scenario.c_str(), init_s);
  return 0;
}
