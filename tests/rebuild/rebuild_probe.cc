// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for nexar_comm_rebuild under nexrun. Usage: rebuild_probe <scenario> <victim>
//   respawn  the victim kills itself (SIGKILL) after a first allreduce; the survivors see
//            their barrier fail, rebuild, and the replacement's nexar_init returns the
//            rebuilt world; every rank then checks it is a full world: size, ranks,
//            allreduce, split, broadcast, point to point ("after <rank> ok"); rebuild of
//            the split communicator or with a NULL newcomm is refused.
//   alone    the same death with no replacement coming: rebuild fails with
//            NEXAR_ERR_PEER_LOST naming the victim within the 2 s timeout ("alone <rank> ok").
// <victim> may be a list ("1,3": they die at once). A third argument names a survivor that
// dies as it enters nexar_comm_rebuild (cascading): with a replacement for it (respawn)
// every rank still ends with the full world; without (alone) every other survivor gets
// NEXAR_ERR_PEER_LOST naming it.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../integration/probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

int size_of(nexar_comm_t c) {
  int n = -1;
  PROBE_OK(nexar_comm_size(c, &n));
  return n;
}

int rank_of(nexar_comm_t c) {
  int r = -1;
  PROBE_OK(nexar_comm_rank(c, &r));
  return r;
}

// The sum of (rank + 1) over the communicator, 1 KiB and 1 MiB wide (shared-memory slot and
// large paths alike).
void check_allreduce(nexar_comm_t c) {
  const int n = size_of(c), r = rank_of(c);
  for (size_t count : {size_t{128}, size_t{1} << 17}) {
    std::vector<int64_t> in(count, r + 1), out(count, -1);
    PROBE_OK(nexar_allreduce(in.data(), out.data(), count, NEXAR_INT64, NEXAR_SUM, c));
    for (int64_t v : out) PROBE_CHECK(v == static_cast<int64_t>(n) * (n + 1) / 2);
  }
}

// A full world: every rank of the original size, collectives, split, broadcast, p2p.
void check_full_world(nexar_comm_t w, int expect_size, int expect_rank) {
  PROBE_CHECK(size_of(w) == expect_size);
  PROBE_CHECK(rank_of(w) == expect_rank);
  check_allreduce(w);
  nexar_comm_t half = nullptr;
  PROBE_OK(nexar_comm_split(w, expect_rank % 2, expect_rank, &half));
  check_allreduce(half);
  nexar_comm_t none = nullptr;  // the world only; a NULL newcomm is refused too
  PROBE_CHECK(nexar_comm_rebuild(half, &none) == NEXAR_ERR_INVALID_ARGUMENT && none == nullptr);
  PROBE_CHECK(std::string(nexar_comm_last_error(half)).find("world only") != std::string::npos);
  PROBE_CHECK(nexar_comm_rebuild(w, nullptr) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_OK(nexar_comm_destroy(half));
  int64_t token = expect_rank == 0 ? 4242 : -1;
  PROBE_OK(nexar_broadcast(&token, 1, NEXAR_INT64, 0, w));
  PROBE_CHECK(token == 4242);
  const int next = (expect_rank + 1) % expect_size, prev = (expect_rank + expect_size - 1) % expect_size;
  std::vector<unsigned char> out(1 << 20), in(1 << 20);
  for (size_t i = 0; i < out.size(); ++i) out[i] = probe::pattern(expect_rank, 1, i);
  nexar_request_t req = nullptr;
  PROBE_OK(nexar_irecv(in.data(), in.size(), NEXAR_UINT8, prev, 9, w, &req));
  PROBE_OK(nexar_send(out.data(), out.size(), NEXAR_UINT8, next, 9, w));
  PROBE_OK(nexar_wait(req));
  for (size_t i = 0; i < in.size(); ++i) PROBE_CHECK(in[i] == probe::pattern(prev, 1, i));
  PROBE_OK(nexar_barrier(w));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  std::vector<int> victims;
  for (const char* p = argc > 2 ? argv[2] : "1"; *p;) {
    char* end = nullptr;
    victims.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    p = *end == ',' ? end + 1 : end;
  }
  const int cascade = argc > 3 ? std::atoi(argv[3]) : -1;  // dies inside the rebuild
  const auto is_victim = [&](int r) { return std::find(victims.begin(), victims.end(), r) != victims.end(); };
  const char* inc_env = std::getenv("NEXAR_RESTART_COUNT");
  const int incarnation = inc_env ? std::atoi(inc_env) : 0;
  nexar_comm_t world = nullptr;
  PROBE_OK(nexar_init(&world));
  g_world = world;
  g_rank = rank_of(world);
  const int n = size_of(world), me = g_rank;
  if (incarnation > 0) {
    // A replacement: nexar_init returned the rebuilt world.
    std::printf("replacement %d incarnation %d joined\n", me, incarnation);
  } else {
    check_allreduce(world);
    // The victim dies once every survivor finished that allreduce (it may return before its
    // own last messages arrived, and those are lost with it): each survivor tells it so.
    int done = 1;
    if (is_victim(me)) {
      for (int p = 0; p < n; ++p)
        if (!is_victim(p)) PROBE_OK(nexar_recv(&done, 1, NEXAR_INT32, p, 77, world));
      std::printf("victim %d dies\n", me);
      std::fflush(stdout);
      raise(SIGKILL);
    }
    for (int v : victims) PROBE_OK(nexar_send(&done, 1, NEXAR_INT32, v, 77, world));
    PROBE_OK(nexar_comm_set_timeout(world, 10));
    const nexar_result_t lost = nexar_barrier(world);
    PROBE_CHECK(lost != NEXAR_SUCCESS);
    std::printf("survivor %d saw %s\n", me, nexar_result_string(lost));
    PROBE_OK(nexar_comm_set_timeout(world, scenario == "alone" ? 2 : 30));
    const auto t0 = std::chrono::steady_clock::now();
    nexar_comm_t rebuilt = nullptr;
    if (me == cascade) {
      std::printf("survivor %d dies in the rebuild\n", me);
      std::fflush(stdout);
      std::thread([] { raise(SIGKILL); }).detach();
    }
    const nexar_result_t r = nexar_comm_rebuild(world, &rebuilt);
    const double took = probe::seconds_since(t0);
    if (scenario == "alone") {
      const std::string why = nexar_comm_last_error(world);
      PROBE_CHECK(r == NEXAR_ERR_PEER_LOST);
      PROBE_CHECK(rebuilt == nullptr);
      PROBE_CHECK(why.find("rank " + std::to_string(cascade >= 0 ? cascade : victims.back())) != std::string::npos);
      PROBE_CHECK(took < 8);
      std::printf("alone %d ok in %.2f s: %s\n", me, took, why.c_str());
      nexar_comm_destroy(world);
      return 0;
    }
    PROBE_OK(r);
    std::printf("rebuilt %d in %.3f s\n", me, took);
    std::fflush(stdout);
    nexar_comm_destroy(world);  // the broken old world: freed without synchronising
    world = g_world = rebuilt;
  }
  check_full_world(world, n, me);
  std::printf("after %d ok\n", me);
  std::fflush(stdout);
  PROBE_OK(nexar_comm_destroy(world));
  return 0;
}
