// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for NEXAR_TOPOLOGY (tests/integration/topology_test.cc), under nexrun:
//   topology_probe pairs   every rank sends every other rank three small messages on one
//                          tag and one large (above the eager limit) on another, and
//                          receives them, printing "rank R: from S small <fnv1a of the
//                          three in order> large <fnv1a>"; then each sends one int to
//                          rank+3 and probes for it from any source ("rank R: probed S
//                          bytes B value V"), and allreduces ("rank R: allreduce <sum>")
//   topology_probe relay   kregular:2 at np 4 (a ring; 2's messages to 0 go through 3 and
//                          0's to 2 through 1): rank 3 ends right after init; after 0.5 s
//                          rank 0 receives from 2 and rank 2 sends to 0, printing
//                          "rank R: recv|send <result> (<error text>)"; they end after rank 2
//                          has sent (told 2 -> 1 -> 0 over direct links); nobody finalizes
//   topology_probe flood   hypercube at np 3 (ranks 1 and 2 hold no link: rank 0 relays
//                          both ways): ranks 1 and 2 send each other kFloods messages on
//                          one tag at once, sizes cycling through kFloodSizes (above and
//                          below a fragment, and empty), and check each arrives in order
//                          with its own size and bytes ("rank R: flood from S exact N")
//   topology_probe lost    hypercube at np 8: every rank but 7 posts a receive from rank 7,
//                          which exits 0.3 s after init; ranks 3, 5 and 6 hold a link to it,
//                          the others hear of its loss from them. Each prints "rank R: recv
//                          from 7 <result> after <s> s (<error text>)"; then the survivors
//                          shrink the world and meet in a barrier ("rank R: shrink <result>
//                          size <n>") and exit without finalizing
//   topology_probe colls [large]   collectives of 2 MiB (allreduce, allgather, reduce_scatter)
//                          and, without "large", an 8-byte allreduce, a broadcast and a reduce
//                          from rank 0 and from ranks p - 3 and p - 2; each checks every element and prints "rank R: <name>
//                          exact" (the model picks algorithms whose partners are neighbours
//                          where one exists: tests/integration/topology_test.cc reads the
//                          relayed bytes nexar_comm_destroy logs)
//   topology_probe cycle MSGS BYTES   kregular:2 (a ring): every rank sends MSGS messages of
//                          BYTES to rank + 2 (through rank + 1) while receiving as many from
//                          rank - 2, printing "rank R: cycle from S <result> exact N after T s"
//   topology_probe pairs mixed   rank 1 sets NEXAR_TOPOLOGY=hypercube before nexar_init
//                          (the others keep the environment's): init must fail on every rank.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

constexpr size_t kSmall = 100, kLarge = 200000;  // the eager limit is 64 KiB
constexpr int kSmalls = 3;
int g_size = 0;

std::vector<unsigned char> pattern_buf(int sender, int msg, size_t n) {
  std::vector<unsigned char> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = probe::pattern(sender, msg, i);
  return b;
}

// Message number k of the smalls from sender to receiver, and the large one.
int small_id(int receiver, int k) { return 10 * receiver + k; }
int large_id(int receiver) { return 10 * receiver + 9; }

void pairs() {
  const size_t n = static_cast<size_t>(g_size);
  std::vector<std::vector<unsigned char>> out(n * (kSmalls + 1)), in(n * (kSmalls + 1));
  std::vector<nexar_request_t> reqs;
  for (int p = 0; p < g_size; ++p) {
    if (p == g_rank) continue;
    const size_t at = static_cast<size_t>(p) * (kSmalls + 1);
    for (int k = 0; k < kSmalls; ++k) {
      in[at + static_cast<size_t>(k)].resize(kSmall);
      reqs.emplace_back();
      PROBE_OK(nexar_irecv(in[at + static_cast<size_t>(k)].data(), kSmall, NEXAR_UINT8, p, 5, g_world, &reqs.back()));
    }
    in[at + kSmalls].resize(kLarge);
    reqs.emplace_back();
    PROBE_OK(nexar_irecv(in[at + kSmalls].data(), kLarge, NEXAR_UINT8, p, 6, g_world, &reqs.back()));
  }
  for (int p = 0; p < g_size; ++p) {
    if (p == g_rank) continue;
    const size_t at = static_cast<size_t>(p) * (kSmalls + 1);
    for (int k = 0; k < kSmalls; ++k) {
      out[at + static_cast<size_t>(k)] = pattern_buf(g_rank, small_id(p, k), kSmall);
      reqs.emplace_back();
      PROBE_OK(nexar_isend(out[at + static_cast<size_t>(k)].data(), kSmall, NEXAR_UINT8, p, 5, g_world, &reqs.back()));
    }
    out[at + kSmalls] = pattern_buf(g_rank, large_id(p), kLarge);
    reqs.emplace_back();
    PROBE_OK(nexar_isend(out[at + kSmalls].data(), kLarge, NEXAR_UINT8, p, 6, g_world, &reqs.back()));
  }
  PROBE_OK(nexar_waitall(static_cast<int>(reqs.size()), reqs.data()));
  for (int p = 0; p < g_size; ++p) {
    if (p == g_rank) continue;
    const size_t at = static_cast<size_t>(p) * (kSmalls + 1);
    std::vector<unsigned char> smalls;
    for (int k = 0; k < kSmalls; ++k)
      smalls.insert(smalls.end(), in[at + static_cast<size_t>(k)].begin(), in[at + static_cast<size_t>(k)].end());
    std::printf("rank %d: from %d small %016llx large %016llx\n", g_rank, p,
                static_cast<unsigned long long>(probe::fnv1a(smalls.data(), smalls.size())),
                static_cast<unsigned long long>(probe::fnv1a(in[at + kSmalls].data(), kLarge)));
  }
  const int to = (g_rank + 3) % g_size;
  int32_t token = 700 + g_rank, got = -1;
  nexar_request_t sreq;
  PROBE_OK(nexar_isend(&token, 1, NEXAR_INT32, to, 7, g_world, &sreq));
  nexar_status_t st;
  PROBE_OK(nexar_probe(NEXAR_ANY_SOURCE, 7, g_world, &st));
  PROBE_OK(nexar_recv(&got, 1, NEXAR_INT32, st.source, 7, g_world));
  PROBE_OK(nexar_wait(sreq));
  std::printf("rank %d: probed %d bytes %zu value %d\n", g_rank, st.source, static_cast<size_t>(st.bytes), got);
  int64_t mine = 1000 + g_rank, sum = 0;
  PROBE_OK(nexar_allreduce(&mine, &sum, 1, NEXAR_INT64, NEXAR_SUM, g_world));
  std::printf("rank %d: allreduce %lld\n", g_rank, static_cast<long long>(sum));
}

constexpr size_t kFloodSizes[] = {150000, 100, 70000, 0, 5000};
constexpr int kFloods = 20;

void flood() {
  if (g_rank == 0) return;  // the relay
  const int peer = 3 - g_rank;
  std::vector<std::vector<unsigned char>> out(kFloods), in(kFloods);
  std::vector<nexar_request_t> recvs(kFloods), sends(kFloods);
  for (int i = 0; i < kFloods; ++i) {
    in[static_cast<size_t>(i)].assign(kFloodSizes[0], 0);
    PROBE_OK(nexar_irecv(in[static_cast<size_t>(i)].data(), kFloodSizes[0], NEXAR_UINT8, peer, 8, g_world,
                         &recvs[static_cast<size_t>(i)]));
  }
  for (int i = 0; i < kFloods; ++i) {
    out[static_cast<size_t>(i)] = pattern_buf(g_rank, i, kFloodSizes[i % std::size(kFloodSizes)]);
    PROBE_OK(nexar_isend(out[static_cast<size_t>(i)].data(), out[static_cast<size_t>(i)].size(), NEXAR_UINT8, peer, 8,
                         g_world, &sends[static_cast<size_t>(i)]));
  }
  int exact = 0;
  for (int i = 0; i < kFloods; ++i) {
    nexar_status_t st;
    PROBE_OK(nexar_wait_status(recvs[static_cast<size_t>(i)], &st));
    const std::vector<unsigned char> want = pattern_buf(peer, i, kFloodSizes[i % std::size(kFloodSizes)]);
    if (static_cast<size_t>(st.bytes) == want.size() &&
        std::equal(want.begin(), want.end(), in[static_cast<size_t>(i)].begin()))
      ++exact;
    else
      std::printf("rank %d: flood message %d from %d: %zu bytes, not its own %zu\n", g_rank, i, peer,
                  static_cast<size_t>(st.bytes), want.size());
  }
  PROBE_OK(nexar_waitall(kFloods, sends.data()));
  std::printf("rank %d: flood from %d exact %d\n", g_rank, peer, exact);
}

// Every rank floods the rank two ahead on a ring (kregular:2): each rank relays its left
// neighbour's flood while its own goes through its right neighbour, so every relay's
// next hop is itself a relay, in a circle.
void cycle(int msgs, size_t bytes) {
  const int to = (g_rank + 2) % g_size, from = (g_rank + g_size - 2) % g_size;
  std::vector<std::vector<unsigned char>> out(static_cast<size_t>(msgs)), in(static_cast<size_t>(msgs));
  std::vector<nexar_request_t> recvs(static_cast<size_t>(msgs)), sends(static_cast<size_t>(msgs));
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < in.size(); ++i) {
    in[i].assign(bytes, 0);
    PROBE_OK(nexar_irecv(in[i].data(), bytes, NEXAR_UINT8, from, 11, g_world, &recvs[i]));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = pattern_buf(g_rank, static_cast<int>(i), bytes);
    PROBE_OK(nexar_isend(out[i].data(), bytes, NEXAR_UINT8, to, 11, g_world, &sends[i]));
  }
  nexar_result_t r = nexar_waitall(msgs, recvs.data());
  if (r == NEXAR_SUCCESS) r = nexar_waitall(msgs, sends.data());
  int exact = 0;
  for (size_t i = 0; r == NEXAR_SUCCESS && i < in.size(); ++i)
    exact += in[i] == pattern_buf(from, static_cast<int>(i), bytes);
  std::printf("rank %d: cycle from %d %s exact %d after %.1f s\n", g_rank, from, nexar_result_string(r), exact,
              probe::seconds_since(t0));
  std::fflush(stdout);
  if (r != NEXAR_SUCCESS) std::_Exit(3);
}

void lost() {
  if (g_rank == 7) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::fflush(stdout);
    std::_Exit(7);
  }
  const auto t0 = std::chrono::steady_clock::now();
  int32_t v = 0;
  nexar_result_t r = nexar_recv(&v, 1, NEXAR_INT32, 7, 0, g_world);
  std::printf("rank %d: recv from 7 %s after %.1f s (%s)\n", g_rank, nexar_result_string(r), probe::seconds_since(t0),
              nexar_comm_last_error(g_world));
  std::fflush(stdout);
  // The survivors agree on who is left (the fault-tolerance layer heard of rank 7 on every
  // rank) and end together: one ending early would be news to the others.
  nexar_comm_t alive = nullptr;
  nexar_result_t sr = nexar_comm_shrink(g_world, &alive);
  int alive_size = 0;
  if (sr == NEXAR_SUCCESS) sr = nexar_comm_size(alive, &alive_size);
  if (sr == NEXAR_SUCCESS) sr = nexar_barrier(alive);
  std::printf("rank %d: shrink %s size %d\n", g_rank, nexar_result_string(sr), alive_size);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the last messages leave
  std::_Exit(0);  // the world's closing barrier would wait for rank 7
}

void relay() {
  if (g_rank == 3) {
    std::fflush(stdout);
    std::_Exit(3);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int32_t v = 0;
  if (g_rank == 0) {
    nexar_result_t r = nexar_recv(&v, 1, NEXAR_INT32, 2, 0, g_world);
    std::printf("rank 0: recv %s (%s)\n", nexar_result_string(r), nexar_comm_last_error(g_world));
  }
  if (g_rank == 2) {
    nexar_result_t r = nexar_send(&v, 1, NEXAR_INT32, 0, 0, g_world);
    std::printf("rank 2: send %s (%s)\n", nexar_result_string(r), nexar_comm_last_error(g_world));
  }
  std::fflush(stdout);
  // Nobody ends before rank 2 has sent: rank 0's end would be news to rank 2 (a lost-rank
  // notice) and could name rank 0 instead of the relay. Over direct links: 2 -> 1 -> 0,
  // each told back.
  if (g_rank == 2) {
    (void)nexar_send(&v, 1, NEXAR_INT32, 1, 9, g_world);
    (void)nexar_recv(&v, 1, NEXAR_INT32, 1, 10, g_world);
  }
  if (g_rank == 1) {
    (void)nexar_recv(&v, 1, NEXAR_INT32, 2, 9, g_world);
    (void)nexar_send(&v, 1, NEXAR_INT32, 2, 10, g_world);
    (void)nexar_send(&v, 1, NEXAR_INT32, 0, 9, g_world);
    (void)nexar_recv(&v, 1, NEXAR_INT32, 0, 10, g_world);
  }
  if (g_rank == 0) {
    (void)nexar_recv(&v, 1, NEXAR_INT32, 1, 9, g_world);
    (void)nexar_send(&v, 1, NEXAR_INT32, 1, 10, g_world);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the last send leaves
  std::_Exit(0);  // the closing barrier would wait for rank 3
}

// Element i of rank r's input.
int64_t elem(int r, size_t i) { return 1000003LL * r + static_cast<int64_t>(i); }

// The sum over every rank of element i.
int64_t summed(size_t i) {
  int64_t s = 0;
  for (int r = 0; r < g_size; ++r) s += elem(r, i);
  return s;
}

void report(const char* what, bool exact) { std::printf("rank %d: %s %s\n", g_rank, what, exact ? "exact" : "WRONG"); }

void colls(bool large_only) {
  constexpr size_t kCount = 256 << 10;  // 2 MiB of int64
  const size_t n = static_cast<size_t>(g_size), block = kCount / n;
  std::vector<int64_t> in(kCount), out(kCount, -1);
  for (size_t i = 0; i < kCount; ++i) in[i] = elem(g_rank, i);
  PROBE_OK(nexar_allreduce(in.data(), out.data(), kCount, NEXAR_INT64, NEXAR_SUM, g_world));
  bool ok = true;
  for (size_t i = 0; i < kCount; ++i) ok = ok && out[i] == summed(i);
  report("allreduce 2 MiB", ok);
  PROBE_OK(nexar_allgather(in.data(), out.data(), block, NEXAR_INT64, g_world));
  ok = true;
  for (size_t i = 0; i < kCount; ++i) ok = ok && out[i] == elem(static_cast<int>(i / block), i % block);
  report("allgather 2 MiB", ok);
  PROBE_OK(nexar_reduce_scatter(in.data(), out.data(), block, NEXAR_INT64, NEXAR_SUM, g_world));
  ok = true;
  for (size_t i = 0; i < block; ++i) ok = ok && out[i] == summed(static_cast<size_t>(g_rank) * block + i);
  report("reduce_scatter 2 MiB", ok);
  if (large_only) return;
  int64_t one = elem(g_rank, 0), sum = 0;
  PROBE_OK(nexar_allreduce(&one, &sum, 1, NEXAR_INT64, NEXAR_SUM, g_world));
  report("allreduce 8 B", sum == summed(0));
  // From rank 0, then from roots other than 0 (ranks p - 3 and p - 2).
  for (int root : {0, g_size - 3, g_size - 2}) {
    if (root < 0) continue;
    const std::string to = root == 0 ? "" : " root " + std::to_string(root);
    std::vector<int64_t> buf = g_rank == root ? in : std::vector<int64_t>(kCount, -1);
    PROBE_OK(nexar_broadcast(buf.data(), kCount, NEXAR_INT64, root, g_world));
    ok = true;
    for (size_t i = 0; i < kCount; ++i) ok = ok && buf[i] == elem(root, i);
    report(("broadcast 2 MiB" + to).c_str(), ok);
    std::fill(out.begin(), out.end(), -1);
    PROBE_OK(nexar_reduce(in.data(), out.data(), kCount, NEXAR_INT64, NEXAR_SUM, root, g_world));
    ok = true;
    for (size_t i = 0; g_rank == root && i < kCount; ++i) ok = ok && out[i] == summed(i);
    report(("reduce 2 MiB" + to).c_str(), ok);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool mixed = argc > 2 && std::strcmp(argv[2], "mixed") == 0;
  if (mode != "pairs" && mode != "relay" && mode != "flood" && mode != "lost" && mode != "colls" && mode != "cycle") {
    std::fprintf(stderr, "usage: topology_probe pairs|relay|flood|lost [mixed] | colls [large] | cycle MSGS BYTES\n");
    return 2;
  }
  const char* rank_env = std::getenv("NEXAR_RANK");
  if (mixed && rank_env && std::atoi(rank_env) == 1) ::setenv("NEXAR_TOPOLOGY", "hypercube", 1);
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  if (mode == "pairs") pairs();
  if (mode == "relay") relay();
  if (mode == "flood") flood();
  if (mode == "lost") lost();
  if (mode == "cycle") cycle(argc > 3 ? std::atoi(argv[2]) : 8, argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1 << 20);
  if (mode == "colls") colls(argc > 2 && std::strcmp(argv[2], "large") == 0);
  std::fflush(stdout);
  nexar_comm_destroy(g_world);
  return 0;
}
