// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "trace/trace_flush.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

#include "core/thread_name.h"
#include "trace/trace_log.h"

namespace nexar::trace {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr int kMaxSignal = 64;

int g_wake[2] = {-1, -1};  // the handler writes a byte; the writer thread reads it
std::atomic<int> g_state{0};  // 0: idle, 1: asked, 2: written
struct sigaction g_previous[kMaxSignal + 1];

void on_signal(int sig) {
  const int saved_errno = errno;
  int idle = 0;
  if (g_state.compare_exchange_strong(idle, 1)) {
    const char c = 1;
    (void)!write(g_wake[1], &c, 1);
  }
  const timespec step{0, 5 * 1000 * 1000};
  for (int waited = 0; waited < kFlushWaitMs && g_state.load() != 2; waited += 5) nanosleep(&step, nullptr);
  // The default course: the signal is blocked while its handler runs, so it is delivered
  // (and ends the process) as soon as the handler returns.
  sigaction(sig, &g_previous[sig], nullptr);
  raise(sig);
  errno = saved_errno;
}

void writer() {
  name_this_thread("nexar-trace");
  char c;
  while (read(g_wake[0], &c, 1) < 0 && errno == EINTR) {
  }
  (void)write_trace_file();
  g_state.store(2);
}

}  // namespace

void install_trace_flush() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe2(g_wake, O_CLOEXEC) != 0) return;
    // The writer thread must never take the signals itself (it would wait for itself).
    sigset_t block, old;
    sigemptyset(&block);
    for (int s : kSignals) sigaddset(&block, s);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    std::thread(writer).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    for (int s : kSignals) {
      struct sigaction current {};
      if (sigaction(s, nullptr, &current) != 0 || current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO))
        continue;
      g_previous[s] = current;
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      sigaction(s, &sa, nullptr);
    }
  });
}

}  // namespace nexar::trace
