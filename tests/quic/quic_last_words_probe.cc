// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for quic_last_words_test (2 ranks on one host, NEXAR_TRANSPORT=quic):
// rank 1 sends a large message (its own QUIC stream), then kSmall small ones, and exits
// at once without a goodbye. Rank 0 holds its QUIC progress thread (a signal whose handler
// sleeps) while the small ones arrive and rank 1 exits, so that when the thread goes on,
// rank 1's datagrams wait in the socket and its exit (the pidfd watch) waits as posted
// work, both at once. Rank 0 must then receive every message exact, and PEER_LOST on the
// next receive. Prints "last_words ok" (and whether the hold caught the thread in ppoll).
//
// With the argument "ping" (rank 1 on another host: no pidfd watch), rank 0's main thread
// also sends rank 1 a message after rank 1 exited, still within the hold: rank 1's host
// answers with ICMP port unreachable, which then waits in rank 0's socket behind rank 1's
// datagrams (EndpointImpl::end_unreachable must read them before it ends the connection).
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../integration/probe_util.h"

using probe::g_rank;
using probe::g_world;
using probe::pattern;

namespace {

constexpr int kSmall = 40;
constexpr size_t kLarge = 1u << 20;
constexpr int kTagLarge = 1, kTagGo = 2, kTagSmall = 3, kTagPing = 4;
constexpr auto kHold = std::chrono::milliseconds(2000);  // rank 1 sends and exits meanwhile
constexpr auto kPingAfter = std::chrono::milliseconds(1000);  // rank 1 exits ~0.2 s after "go"

size_t small_size(int i) { return 1 + static_cast<size_t>(i) * 97 % 3000; }  // inline (<= eager limit)

timespec g_hold_until{};
void hold_here(int) {  // async-signal-safe: sleeps to an absolute deadline
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &g_hold_until, nullptr) == EINTR) {
  }
}

// The thread named name in this process, or -1.
pid_t thread_named(const std::string& name) {
  DIR* d = ::opendir("/proc/self/task");
  if (d == nullptr) return -1;
  pid_t found = -1;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string comm;
    if (std::getline(f, comm) && comm == name) found = static_cast<pid_t>(std::stol(e->d_name));
  }
  ::closedir(d);
  return found;
}

// The system call tid sleeps in (-1 when it runs or cannot be read).
long syscall_of(pid_t tid) {
  std::ifstream f("/proc/self/task/" + std::to_string(tid) + "/syscall");
  long nr = -1;
  return (f >> nr) ? nr : -1;
}

// Stops the progress thread for kHold, caught in ppoll (its lock free) if it gets there
// within a second. True if it was.
bool hold_progress_thread() {
  const pid_t tid = thread_named("nexar-quic");
  PROBE_CHECK(tid > 0);
  bool in_ppoll = false;
  for (int i = 0; i < 1000 && !in_ppoll; ++i) {
    in_ppoll = syscall_of(tid) == SYS_ppoll;
    if (!in_ppoll) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  struct sigaction sa{};
  sa.sa_handler = hold_here;
  PROBE_CHECK(::sigaction(SIGRTMIN + 3, &sa, nullptr) == 0);
  const auto until = std::chrono::steady_clock::now() + kHold;  // CLOCK_MONOTONIC on Linux
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(until.time_since_epoch()).count();
  g_hold_until.tv_sec = static_cast<time_t>(ns / 1000000000);
  g_hold_until.tv_nsec = static_cast<long>(ns % 1000000000);
  PROBE_CHECK(::syscall(SYS_tgkill, ::getpid(), tid, SIGRTMIN + 3) == 0);
  return in_ppoll;
}

void check_bytes(const std::vector<unsigned char>& b, size_t n, int round) {
  for (size_t i = 0; i < n; ++i)
    if (b[i] != pattern(1, round, i)) {
      std::fprintf(stderr, "rank 0: byte %zu of message %d differs\n", i, round);
      std::exit(1);
    }
}

void sender() {
  std::vector<unsigned char> b(kLarge);
  for (size_t i = 0; i < kLarge; ++i) b[i] = pattern(1, -1, i);
  PROBE_OK(nexar_send(b.data(), kLarge, NEXAR_UINT8, 0, kTagLarge, g_world));  // acknowledged
  char go = 0;
  const auto t0 = std::chrono::steady_clock::now();
  PROBE_OK(nexar_recv(&go, 1, NEXAR_UINT8, 0, kTagGo, g_world));
  std::printf("rank 1: go after %.0f ms\n", 1e3 * probe::seconds_since(t0));
  for (int i = 0; i < kSmall; ++i) {
    const size_t n = small_size(i);
    for (size_t k = 0; k < n; ++k) b[k] = pattern(1, i, k);
    PROBE_OK(nexar_send(b.data(), n, NEXAR_UINT8, 0, kTagSmall, g_world));
  }
  // A small send completes once queued: a sending thread that found the endpoint busy left
  // its packet to the progress thread, which writes it within this.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::fflush(stdout);
  ::_exit(0);
}

void receiver(bool ping) {
  std::vector<unsigned char> b(kLarge);
  PROBE_OK(nexar_recv(b.data(), kLarge, NEXAR_UINT8, 1, kTagLarge, g_world));
  check_bytes(b, kLarge, -1);
  const bool in_ppoll = hold_progress_thread();
  const char go = 1;
  PROBE_OK(nexar_send(&go, 1, NEXAR_UINT8, 1, kTagGo, g_world));
  auto rest = kHold + std::chrono::milliseconds(500);
  if (ping) {  // a small send completes once queued (here: written by this thread)
    std::this_thread::sleep_for(kPingAfter);
    PROBE_OK(nexar_send(&go, 1, NEXAR_UINT8, 1, kTagPing, g_world));
    rest -= kPingAfter;
  }
  std::this_thread::sleep_for(rest);
  for (int i = 0; i < kSmall; ++i) {
    const size_t n = small_size(i);
    nexar_status_t st{};
    const nexar_result_t r = nexar_recv_status(b.data(), kLarge, NEXAR_UINT8, 1, kTagSmall, g_world, &st);
    if (r != NEXAR_SUCCESS) {
      std::fprintf(stderr, "rank 0: message %d of %d from the exited rank 1: %s (%s)\n", i, kSmall,
                   nexar_result_string(r), nexar_comm_last_error(g_world));
      std::exit(1);
    }
    PROBE_CHECK(st.bytes == n);
    check_bytes(b, n, i);
  }
  const nexar_result_t r = nexar_recv(b.data(), kLarge, NEXAR_UINT8, 1, kTagSmall, g_world);
  std::printf("rank 0: %d messages, then %s (progress thread held %s)\n", kSmall, nexar_result_string(r),
              in_ppoll ? "in ppoll" : "elsewhere");
  PROBE_CHECK(r == NEXAR_ERR_PEER_LOST);
  std::printf("last_words ok\n");
  std::fflush(stdout);
  nexar_comm_destroy(g_world);  // its peer is gone: the result says so
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  const bool ping = argc > 1 && std::strcmp(argv[1], "ping") == 0;
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  int size = 0;
  PROBE_OK(nexar_comm_size(g_world, &size));
  PROBE_CHECK(size == 2);
  PROBE_OK(nexar_barrier(g_world));
  if (g_rank == 1) sender();
  receiver(ping);
}
