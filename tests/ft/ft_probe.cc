// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the fault-tolerance tests (`ft_probe <scenario> [victims]` under
// nexrun --enable-recovery): ranks die by SIGKILL at chosen moments, the survivors recover with
// revoke / agree / shrink and prove that the shrunk communicator is a full one (every
// collective with exact results, a split, point to point) with the same membership on
// every survivor. Each survivor prints "<scenario> ok"; any difference exits 1.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "nexar/nexar.hpp"
#include "probe_util.h"

namespace {

using probe::g_rank;
using probe::g_world;

int g_size = 0;
std::vector<int> g_victims;

bool is_victim(int world_rank) { return std::find(g_victims.begin(), g_victims.end(), world_rank) != g_victims.end(); }

// Dies by SIGKILL after delay_ms, from another thread (the main thread is inside a call).
void die_later(int delay_ms) {
  std::thread([delay_ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::raise(SIGKILL);
  }).detach();
}

// A barrier that every victim leaves only once every survivor has left it. A barrier
// returns on a rank whose last message to another may still be queued (a small send
// completes once copied): a victim dying right after could leave a survivor waiting in
// the barrier for that message, which never comes (ft_recovery's fault_agree, np 3).
void barrier_before_dying() {
  constexpr int kPassedTag = 4711;
  PROBE_OK(nexar_barrier(g_world));
  int32_t token = g_rank;
  for (int r = 0; r < g_size; ++r) {
    if (is_victim(g_rank) && !is_victim(r)) PROBE_OK(nexar_recv(&token, 1, NEXAR_INT32, r, kPassedTag, g_world));
    if (!is_victim(g_rank) && is_victim(r)) PROBE_OK(nexar_send(&token, 1, NEXAR_INT32, r, kPassedTag, g_world));
  }
}

int comm_rank(nexar_comm_t c) {
  int r = -1;
  PROBE_OK(nexar_comm_rank(c, &r));
  return r;
}
int comm_size(nexar_comm_t c) {
  int n = -1;
  PROBE_OK(nexar_comm_size(c, &n));
  return n;
}

#define COMM_OK(c, call)                                                                              \
  do {                                                                                               \
    nexar_result_t r_ = (call);                                                                      \
    if (r_ != NEXAR_SUCCESS) {                                                                       \
      std::fprintf(stderr, "rank %d: %s failed at %s:%d: %s (%s)\n", g_rank, #call, __FILE__, __LINE__, \
                   nexar_result_string(r_), nexar_comm_last_error(c));                               \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

// The world ranks of c's members, in c's order (allgather), and this rank's.
std::vector<int32_t> members_of(nexar_comm_t c) {
  std::vector<int32_t> all(static_cast<size_t>(comm_size(c)));
  int32_t me = g_rank;
  COMM_OK(c, nexar_allgather(&me, all.data(), 1, NEXAR_INT32, c));
  return all;
}

// Every collective on c, with results computed here from the members' world ranks.
void check_full(nexar_comm_t c) {
  const std::vector<int32_t> m = members_of(c);
  const int n = static_cast<int>(m.size()), r = comm_rank(c);
  PROBE_CHECK(m[static_cast<size_t>(r)] == g_rank);
  int64_t sum = 0;
  for (int32_t w : m) sum += w + 1;
  for (size_t count : {size_t{1}, size_t{3000}, size_t{70000}}) {
    std::vector<int64_t> v(count, g_rank + 1), out(count, 0);
    COMM_OK(c, nexar_allreduce(v.data(), out.data(), count, NEXAR_INT64, NEXAR_SUM, c));
    for (int64_t x : out) PROBE_CHECK(x == sum);
  }
  const int root = n - 1;
  int64_t b = r == root ? 4242 : 0;
  COMM_OK(c, nexar_broadcast(&b, 1, NEXAR_INT64, root, c));
  PROBE_CHECK(b == 4242);
  int64_t mine = g_rank + 1, red = 0;
  COMM_OK(c, nexar_reduce(&mine, &red, 1, NEXAR_INT64, NEXAR_SUM, 0, c));
  if (r == 0) PROBE_CHECK(red == sum);
  std::vector<int64_t> blocks(static_cast<size_t>(n)), got(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) blocks[static_cast<size_t>(j)] = (g_rank + 1) * 1000 + j;
  int64_t rs = 0;
  COMM_OK(c, nexar_reduce_scatter(blocks.data(), &rs, 1, NEXAR_INT64, NEXAR_SUM, c));
  PROBE_CHECK(rs == sum * 1000 + r * n);
  COMM_OK(c, nexar_alltoall(blocks.data(), got.data(), 1, NEXAR_INT64, c));
  for (int j = 0; j < n; ++j) PROBE_CHECK(got[static_cast<size_t>(j)] == (m[static_cast<size_t>(j)] + 1) * 1000 + r);
  COMM_OK(c, nexar_gather(&mine, got.data(), 1, NEXAR_INT64, 0, c));
  if (r == 0)
    for (int j = 0; j < n; ++j) PROBE_CHECK(got[static_cast<size_t>(j)] == m[static_cast<size_t>(j)] + 1);
  int64_t sc = 0;
  COMM_OK(c, nexar_scatter(blocks.data(), &sc, 1, NEXAR_INT64, 0, c));
  PROBE_CHECK(sc == (m[0] + 1) * 1000 + r);
  int64_t scan = 0, prefix = 0;
  for (int j = 0; j <= r; ++j) prefix += m[static_cast<size_t>(j)] + 1;
  COMM_OK(c, nexar_scan(&mine, &scan, 1, NEXAR_INT64, NEXAR_SUM, c));
  PROBE_CHECK(scan == prefix);
  COMM_OK(c, nexar_barrier(c));
  // Point to point around the ring.
  if (n > 1) {
    int64_t from = -1, to = g_rank;
    nexar_request_t rq = nullptr;
    COMM_OK(c, nexar_irecv(&from, 1, NEXAR_INT64, (r + n - 1) % n, 7, c, &rq));
    COMM_OK(c, nexar_send(&to, 1, NEXAR_INT64, (r + 1) % n, 7, c));
    COMM_OK(c, nexar_wait(rq));
    PROBE_CHECK(from == m[static_cast<size_t>((r + n - 1) % n)]);
  }
  // A split by parity, used at once.
  nexar_comm_t half = nullptr;
  COMM_OK(c, nexar_comm_split(c, r % 2, r, &half));
  int64_t hs = 0, hwant = 0;
  for (int j = r % 2; j < n; j += 2) hwant += m[static_cast<size_t>(j)] + 1;
  COMM_OK(half, nexar_allreduce(&mine, &hs, 1, NEXAR_INT64, NEXAR_SUM, half));
  PROBE_CHECK(hs == hwant);
  COMM_OK(half, nexar_comm_destroy(half));
}

// The recovery loop of docs/fault-tolerance.md: work, agree on the outcome, and on any
// failure revoke and shrink. Returns the communicator the work finally succeeded on.
// The communicators it made on the way are destroyed; the one passed in is the caller's.
nexar_comm_t recover(nexar_comm_t c, bool first_failed, int die_in_shrink = -1) {
  const nexar_comm_t orig = c;
  bool failed = first_failed;
  for (int round = 0; round < 8; ++round) {
    if (!failed) {
      int64_t one = 1, sum = 0;
      failed = nexar_allreduce(&one, &sum, 1, NEXAR_INT64, NEXAR_SUM, c) != NEXAR_SUCCESS;
    }
    int flag = failed ? 0 : 1;
    const nexar_result_t ar = nexar_comm_agree(c, &flag);
    PROBE_CHECK(ar == NEXAR_SUCCESS || ar == NEXAR_ERR_PEER_LOST);
    if (ar == NEXAR_SUCCESS && flag) return c;
    PROBE_OK(nexar_comm_revoke(c));
    // A victim of the shrink dies as it enters, or at the latest once it returns.
    if (die_in_shrink == g_rank) die_later(0);
    nexar_comm_t next = nullptr;
    const nexar_result_t sr = nexar_comm_shrink(c, &next);
    if (die_in_shrink == g_rank) ::raise(SIGKILL);
    COMM_OK(c, sr);
    if (c != orig) nexar_comm_destroy(c);
    c = next;
    failed = false;
  }
  std::fprintf(stderr, "rank %d: no recovery after 8 rounds\n", g_rank);
  std::exit(1);
}

// Checks the survivors' communicator: the expected members in world order, every call.
void check_survivors(nexar_comm_t c) {
  std::vector<int32_t> want;
  for (int w = 0; w < g_size; ++w)
    if (!is_victim(w)) want.push_back(w);
  const std::vector<int32_t> got = members_of(c);
  if (got != want) {
    std::string s;
    for (int32_t w : got) s += " " + std::to_string(w);
    std::fprintf(stderr, "rank %d: survivors are%s\n", g_rank, s.c_str());
    std::exit(1);
  }
  size_t n = 0;
  int failed[64];
  PROBE_OK(nexar_comm_failed_ranks(g_world, failed, 64, &n));
  for (int v : g_victims) PROBE_CHECK(std::find(failed, failed + std::min<size_t>(n, 64), v) != failed + std::min<size_t>(n, 64));
  check_full(c);
}

int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs allreduces until one fails (a victim dies meanwhile); victims die delay_ms after
// the start. With FT_PROBE_DETECT_S set (ranks on one kernel: one monotonic clock), the
// survivors' failing call must return within that many seconds of the kill.
void loop_until_failure(int delay_ms) {
  int64_t mine = is_victim(g_rank) ? monotonic_ns() + int64_t{delay_ms} * 1000000 : 0, kill_at = 0;
  PROBE_OK(nexar_allreduce(&mine, &kill_at, 1, NEXAR_INT64, NEXAR_MAX, g_world));
  if (is_victim(g_rank))
    std::thread([kill_at] {
      std::this_thread::sleep_for(std::chrono::nanoseconds(kill_at - monotonic_ns()));
      ::raise(SIGKILL);
    }).detach();
  // One element: on one host the shared-slot allreduce, whose waits no request stands for.
  float one = 1.0f, sum = 0.0f;
  for (int i = 0; i < 10000000; ++i)
    if (nexar_allreduce(&one, &sum, 1, NEXAR_FLOAT32, NEXAR_SUM, g_world) != NEXAR_SUCCESS) {
      const double lag = static_cast<double>(monotonic_ns() - kill_at) / 1e9;
      const char* bound = std::getenv("FT_PROBE_DETECT_S");
      if (bound && lag > std::atof(bound)) {
        std::fprintf(stderr, "rank %d: the allreduce failed %.3f s after the kill (bound %s s)\n", g_rank, lag, bound);
        std::exit(1);
      }
      return;
    }
  std::fprintf(stderr, "rank %d: no failure seen\n", g_rank);
  std::exit(1);
}

// Ranks 0..n-2 block in an allreduce (and rank 0 in a receive) that the last rank never
// joins; it revokes instead, 100 ms after a barrier. Everyone leaves with NEXAR_ERR_REVOKED
// promptly (on one host a member asleep in a shared-slot wait, which no request stands
// for, is woken by the revocation: it once slept on to its one-second check), later calls
// say so, and agree / shrink / failed_ranks work on the revoked world.
void scenario_revoke() {
  const int last = g_size - 1;
  PROBE_OK(nexar_barrier(g_world));
  const auto t0 = std::chrono::steady_clock::now();
  if (g_rank == last) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    PROBE_OK(nexar_comm_revoke(g_world));
  } else {
    int64_t in = 1, out = 0, never = 0;
    nexar_request_t rq = nullptr;
    if (g_rank == 0) PROBE_OK(nexar_irecv(&never, 1, NEXAR_INT64, last, 99, g_world, &rq));
    const nexar_result_t r = nexar_allreduce(&in, &out, 1, NEXAR_INT64, NEXAR_SUM, g_world);
    if (r != NEXAR_ERR_REVOKED) {
      std::fprintf(stderr, "rank %d: blocked allreduce returned %s (%s)\n", g_rank, nexar_result_string(r),
                   nexar_comm_last_error(g_world));
      std::exit(1);
    }
    // The revocation comes 0.1 s after the barrier; a sleeper that missed it wakes at 1 s.
    const double waited = probe::seconds_since(t0);
    if (waited >= 0.7) {
      std::fprintf(stderr, "rank %d: the revocation reached the blocked allreduce after %.3f s\n", g_rank, waited);
      std::exit(1);
    }
    if (rq) PROBE_CHECK(nexar_wait(rq) == NEXAR_ERR_REVOKED);
  }
  PROBE_CHECK(nexar_barrier(g_world) == NEXAR_ERR_REVOKED);
  int64_t x = 1;
  PROBE_CHECK(nexar_send(&x, 1, NEXAR_INT64, 0, 1, g_world) == NEXAR_ERR_REVOKED);
  int rank = -1;
  PROBE_OK(nexar_comm_rank(g_world, &rank));
  size_t n = 99;
  PROBE_OK(nexar_comm_failed_ranks(g_world, nullptr, 0, &n));
  PROBE_CHECK(n == 0);
  int flag = 0xff & ~(1 << g_rank);
  PROBE_OK(nexar_comm_agree(g_world, &flag));
  PROBE_CHECK(flag == (0xff & ~((1 << g_size) - 1)));
  nexar_comm_t s = nullptr;
  PROBE_OK(nexar_comm_shrink(g_world, &s));
  PROBE_CHECK(comm_size(s) == g_size && comm_rank(s) == g_rank);
  check_full(s);
  COMM_OK(s, nexar_comm_destroy(s));
}

// Every survivor got the same agreement: compared on the survivors' communicator.
void check_same(nexar_comm_t c, int32_t value) {
  int32_t lo = value, hi = value;
  COMM_OK(c, nexar_allreduce(&value, &lo, 1, NEXAR_INT32, NEXAR_MIN, c));
  COMM_OK(c, nexar_allreduce(&value, &hi, 1, NEXAR_INT32, NEXAR_MAX, c));
  PROBE_CHECK(lo == hi);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ft_probe <scenario> [victim,...]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  if (argc > 2)
    for (char* p = argv[2]; *p;) {
      g_victims.push_back(static_cast<int>(std::strtol(p, &p, 10)));
      if (*p == ',') ++p;
    }
  if (nexar_init(&g_world) != NEXAR_SUCCESS) {
    std::fprintf(stderr, "nexar_init: %s\n", nexar_comm_last_error(nullptr));
    return 1;
  }
  g_rank = comm_rank(g_world);
  g_size = comm_size(g_world);
  nexar_comm_t c = g_world;
  if (scenario == "revoke") {
    scenario_revoke();
  } else if (scenario == "kill_coll") {  // victims die inside allreduces
    loop_until_failure(150);
    c = recover(g_world, true);
    check_survivors(c);
  } else if (scenario == "kill_between") {  // a victim dies while nobody is in a call
    barrier_before_dying();
    if (is_victim(g_rank)) ::raise(SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    c = recover(g_world, false);
    check_survivors(c);
  } else if (scenario == "kill_agree" || scenario == "fault_agree") {  // victims die inside the agreement
    // The others wait in the agreement for the victims. kill_agree: they die as they enter
    // it (as the coordinator, a victim may decide and reach only some members first).
    // fault_agree: the victim dies at the agreement's kill point, its vote sent and the
    // decision not yet known (nexrun -x NEXAR_FAULT_KILL=<victim>:agreement).
    const bool by_probe = scenario == "kill_agree";
    barrier_before_dying();
    if (by_probe && is_victim(g_rank)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      die_later(0);
    }
    int flag = 1;
    const nexar_result_t r = nexar_comm_agree(g_world, &flag);
    if (is_victim(g_rank)) {
      if (by_probe) ::raise(SIGKILL);
      std::fprintf(stderr, "rank %d: left the agreement alive (NEXAR_FAULT_KILL did not fire)\n", g_rank);
      return 1;
    }
    PROBE_CHECK(r == NEXAR_SUCCESS || r == NEXAR_ERR_PEER_LOST);
    c = recover(g_world, true);
    check_survivors(c);
    check_same(c, r * 16 + flag);
  } else if (scenario == "kill_shrink") {  // the first victim in an allreduce, the second in the shrink
    const int second = g_victims.at(1);
    g_victims.resize(1);
    loop_until_failure(150);
    g_victims.push_back(second);
    c = recover(g_world, true, second);
    check_survivors(c);
  } else if (scenario == "cpp") {  // the C++ wrapper's calls after a kill in an allreduce
    nexar::Communicator w(g_world);  // owns the world from here
    loop_until_failure(150);
    w.revoke();
    const nexar::Communicator::Agreement a = w.agree(g_rank == 0 ? 3 : 1);
    PROBE_CHECK(a.peer_failed && a.flag == 1);
    PROBE_CHECK(w.failed_ranks() == g_victims);
    nexar::Communicator s = w.shrink();
    check_survivors(s.handle());
    std::printf("cpp ok\n");
    std::fflush(stdout);
    return 0;  // s, then the world, destroyed
  } else if (scenario == "kill_sub") {  // on a split and a dup; then a shrink of the shrunk one
    nexar_comm_t half = nullptr, dup = nullptr;
    PROBE_OK(nexar_comm_split(g_world, g_rank % 2, g_rank, &half));
    PROBE_OK(nexar_comm_dup(g_world, &dup));
    const int victim_half = g_victims.at(0) % 2;
    if (g_rank % 2 == victim_half) {  // the victim's half: it dies in an allreduce there
      if (is_victim(g_rank)) die_later(150);
      std::vector<float> v(4096, 1.0f), out(4096);
      while (nexar_allreduce(v.data(), out.data(), v.size(), NEXAR_FLOAT32, NEXAR_SUM, half) == NEXAR_SUCCESS) {
      }
      nexar_comm_t h2 = recover(half, true);
      size_t n = 0;
      PROBE_OK(nexar_comm_failed_ranks(half, nullptr, 0, &n));
      PROBE_CHECK(n == 1);
      check_full(h2);
      COMM_OK(h2, nexar_comm_destroy(h2));
      nexar_comm_destroy(half);
    } else {
      check_full(half);  // the other half is untouched
      COMM_OK(half, nexar_comm_destroy(half));
    }
    c = recover(dup, false);
    PROBE_CHECK(c != dup);
    check_survivors(c);
    // A shrunk communicator shrinks again (revoked, nobody failed since): same members.
    // An agreement first: every member has finished checking once it decides (after a
    // barrier a member may still wait for its last message, and the revoke cuts it short).
    int all_done = 1;
    COMM_OK(c, nexar_comm_agree(c, &all_done));
    PROBE_OK(nexar_comm_revoke(c));
    nexar_comm_t again = nullptr;
    COMM_OK(c, nexar_comm_shrink(c, &again));
    COMM_OK(c, nexar_comm_destroy(c));
    c = again;
    check_survivors(c);
    nexar_comm_destroy(dup);
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  if (c != g_world) COMM_OK(c, nexar_comm_destroy(c));
  std::printf("%s ok\n", scenario.c_str());
  std::fflush(stdout);
  nexar_comm_destroy(g_world);
  return 0;
}
