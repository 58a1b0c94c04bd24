// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for NEXAR_CONNECT=lazy (tests/integration/lazy_test.cc), under nexrun:
//   lazy_probe ring   each rank sends a small and a large (above the eager limit) message
//                     to rank+1 and receives them from rank-1, printing
//                     "rank R: from S small <fnv1a> large <fnv1a>"
//   lazy_probe coll   each rank receives from NEXAR_ANY_SOURCE what rank-1 sends it
//                     ("rank R: any source S sent V"), then allreduce, broadcast from the
//                     last rank, allgather and alltoall, printing "rank R: allreduce <sum>
//                     broadcast <fnv1a> allgather <fnv1a> alltoall <fnv1a>"
//   lazy_probe dead   rank 1 ends right after nexar_init, having used no connection; the
//                     others wait 0.3 s; even ranks above 1 receive from it, odd ones
//                     from NEXAR_ANY_SOURCE (nobody sends), and print "rank R: recv <result>
//                     after S s" or "rank R: any-source recv <result> after S s"; all
//                     shrink the world (rank 0, the
//                     agreement's coordinator, never talked to rank 1: it learns of the loss
//                     by waiting for its vote) and allreduce on the survivors:
//                     "rank R: survivors <sum>".
//                     With "dead hosts" every rank claims a host of its own (NEXAR_HOST_ID),
//                     so no rank watches rank 1's process: its loss is found by connecting.
//   lazy_probe ring mixed   odd ranks set NEXAR_CONNECT=eager before nexar_init (the
//                     others keep the environment's): init must fail on every rank.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

constexpr size_t kSmall = 100, kLarge = 200000;  // the eager limit is 64 KiB
int g_size = 0;

std::vector<unsigned char> pattern_buf(int sender, int msg, size_t n) {
  std::vector<unsigned char> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = probe::pattern(sender, msg, i);
  return b;
}

void ring() {
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  std::vector<unsigned char> small = pattern_buf(g_rank, 0, kSmall), large = pattern_buf(g_rank, 1, kLarge);
  std::vector<unsigned char> rs(kSmall), rl(kLarge);
  nexar_request_t reqs[4];
  PROBE_OK(nexar_irecv(rs.data(), kSmall, NEXAR_UINT8, prev, 0, g_world, &reqs[0]));
  PROBE_OK(nexar_irecv(rl.data(), kLarge, NEXAR_UINT8, prev, 1, g_world, &reqs[1]));
  PROBE_OK(nexar_isend(small.data(), kSmall, NEXAR_UINT8, next, 0, g_world, &reqs[2]));
  PROBE_OK(nexar_isend(large.data(), kLarge, NEXAR_UINT8, next, 1, g_world, &reqs[3]));
  PROBE_OK(nexar_waitall(4, reqs));
  std::printf("rank %d: from %d small %016llx large %016llx\n", g_rank, prev,
              static_cast<unsigned long long>(probe::fnv1a(rs.data(), kSmall)),
              static_cast<unsigned long long>(probe::fnv1a(rl.data(), kLarge)));
}

void coll() {
  // Nobody is connected yet: the receive from any source must not keep the sender out.
  const int next = (g_rank + 1) % g_size;
  int32_t from = -1, token = 500 + g_rank;
  nexar_request_t req;
  nexar_status_t st;
  PROBE_OK(nexar_irecv(&from, 1, NEXAR_INT32, NEXAR_ANY_SOURCE, 9, g_world, &req));
  PROBE_OK(nexar_send(&token, 1, NEXAR_INT32, next, 9, g_world));
  PROBE_OK(nexar_wait_status(req, &st));
  std::printf("rank %d: any source %d sent %d\n", g_rank, st.source, from);
  int64_t in = 1000 + g_rank, sum = 0;
  PROBE_OK(nexar_allreduce(&in, &sum, 1, NEXAR_INT64, NEXAR_SUM, g_world));
  const int root = g_size - 1;
  std::vector<unsigned char> b = g_rank == root ? pattern_buf(root, 2, kLarge) : std::vector<unsigned char>(kLarge);
  PROBE_OK(nexar_broadcast(b.data(), kLarge, NEXAR_UINT8, root, g_world));
  std::vector<unsigned char> mine = pattern_buf(g_rank, 3, kSmall), all(kSmall * static_cast<size_t>(g_size));
  PROBE_OK(nexar_allgather(mine.data(), all.data(), kSmall, NEXAR_UINT8, g_world));
  // alltoall: block j of rank r's send buffer is pattern(r, 4 + j); rank r receives
  // pattern(j, 4 + r) from each j.
  std::vector<unsigned char> out(kSmall * static_cast<size_t>(g_size)), got(out.size());
  for (int j = 0; j < g_size; ++j)
    for (size_t i = 0; i < kSmall; ++i) out[static_cast<size_t>(j) * kSmall + i] = probe::pattern(g_rank, 4 + j, i);
  PROBE_OK(nexar_alltoall(out.data(), got.data(), kSmall, NEXAR_UINT8, g_world));
  std::printf("rank %d: allreduce %lld broadcast %016llx allgather %016llx alltoall %016llx\n", g_rank,
              static_cast<long long>(sum), static_cast<unsigned long long>(probe::fnv1a(b.data(), kLarge)),
              static_cast<unsigned long long>(probe::fnv1a(all.data(), all.size())),
              static_cast<unsigned long long>(probe::fnv1a(got.data(), got.size())));
}

void dead() {
  if (g_rank == 1) {
    std::fflush(stdout);
    std::_Exit(3);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (g_rank > 1) {
    // An odd rank waits for anyone: it never used a connection, so only connecting to
    // every member on that receive finds rank 1 gone.
    const bool any = g_rank % 2 == 1;
    int32_t v = 0;
    const auto t0 = std::chrono::steady_clock::now();
    nexar_result_t r = nexar_recv(&v, 1, NEXAR_INT32, any ? NEXAR_ANY_SOURCE : 1, 0, g_world);
    std::printf("rank %d: %srecv %s after %.2f s\n", g_rank, any ? "any-source " : "", nexar_result_string(r),
                probe::seconds_since(t0));
  }
  nexar_comm_t alive = nullptr;
  PROBE_OK(nexar_comm_shrink(g_world, &alive));
  int64_t in = 1000 + g_rank, sum = 0;
  PROBE_OK(nexar_allreduce(&in, &sum, 1, NEXAR_INT64, NEXAR_SUM, alive));
  std::printf("rank %d: survivors %lld\n", g_rank, static_cast<long long>(sum));
  PROBE_OK(nexar_comm_destroy(alive));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool own_hosts = argc > 2 && std::strcmp(argv[2], "hosts") == 0;
  const bool mixed = argc > 2 && std::strcmp(argv[2], "mixed") == 0;
  if (mode != "ring" && mode != "coll" && mode != "dead") {
    std::fprintf(stderr, "usage: lazy_probe ring|coll|dead [hosts|mixed]\n");
    return 2;
  }
  if (own_hosts) {
    const char* r = std::getenv("NEXAR_RANK");
    ::setenv("NEXAR_HOST_ID", (std::string("lazy-probe-host-") + (r ? r : "?")).c_str(), 1);
  }
  const char* rank_env = std::getenv("NEXAR_RANK");
  if (mixed && rank_env && std::atoi(rank_env) % 2 == 1) ::setenv("NEXAR_CONNECT", "eager", 1);
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  if (mode == "ring") ring();
  if (mode == "coll") coll();
  if (mode == "dead") dead();
  std::fflush(stdout);
  nexar_comm_destroy(g_world);
  return 0;
}
