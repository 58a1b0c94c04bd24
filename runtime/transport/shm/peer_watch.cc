// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/peer_watch.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/log.h"
#include "core/thread_name.h"

namespace nexar::shm {

int pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

namespace {
// SIGKILL through the pidfd (never a recycled pid), else by pid. 0 or an errno.
int kill_peer(int pidfd, pid_t pid) {
#ifdef SYS_pidfd_send_signal
  if (pidfd >= 0) return ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0 ? 0 : errno;
#endif
  (void)pidfd;
  return ::kill(pid, SIGKILL) == 0 ? 0 : errno;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

PeerWatch::PeerWatch(Config cfg) : cfg_(std::move(cfg)), state_(cfg_.peers.size()) {
  for (size_t i = 0; i < cfg_.peers.size(); ++i) {
    state_[i].pidfd = pidfd_open(cfg_.peers[i].pid);
    if (state_[i].pidfd < 0)
      NX_WARN(NET, "pidfd_open(%d) for rank %d: %s; its exit is noticed by kill(0) within %lld ms",
              static_cast<int>(cfg_.peers[i].pid), cfg_.peers[i].rank, std::strerror(errno),
              static_cast<long long>(cfg_.tick_ns / 1000000));
  }
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  // The first beat before anything else can happen here: a rank that stops right after
  // init is counted (a heartbeat still 0 is not).
  if (cfg_.own_heartbeat) cfg_.own_heartbeat->fetch_add(1, std::memory_order_relaxed);
  thread_ = std::thread([this] { run(); });
}

PeerWatch::~PeerWatch() {
  const uint64_t one = 1;
  while (::write(stop_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(stop_fd_);
  for (State& s : state_)
    if (s.pidfd >= 0) ::close(s.pidfd);
}

void PeerWatch::run() {
  name_this_thread("nexar-watch");
  std::vector<pollfd> fds(state_.size() + 1);
  fds[0] = {stop_fd_, POLLIN, 0};
  for (size_t i = 0; i < state_.size(); ++i) fds[i + 1] = {state_[i].pidfd, POLLIN, 0};  // -1: ignored
  const int tick_ms = static_cast<int>(std::max<int64_t>(1, cfg_.tick_ns / 1000000));
  int64_t last = now_ns();
  for (;;) {
    const int n = ::poll(fds.data(), fds.size(), tick_ms);
    if (n < 0 && errno != EINTR) NX_WARN(NET, "peer watch poll: %s", std::strerror(errno));
    if (n > 0 && (fds[0].revents & POLLIN)) return;
    if (cfg_.own_heartbeat) cfg_.own_heartbeat->fetch_add(1, std::memory_order_relaxed);
    const int64_t now = now_ns();
    const int64_t step = std::min(now - last, 4 * cfg_.tick_ns);
    last = now;
    for (size_t i = 0; i < state_.size(); ++i) {
      if (state_[i].reported) continue;
      const bool exited = state_[i].pidfd >= 0
                              ? n > 0 && (fds[i + 1].revents & (POLLIN | POLLHUP)) != 0
                              : ::kill(cfg_.peers[i].pid, 0) != 0 && errno == ESRCH;
      if (check(i, exited, step)) fds[i + 1].fd = -1;  // reported: poll no more
    }
  }
}

bool PeerWatch::check(size_t i, bool exited, int64_t step_ns) {
  const WatchedPeer& p = cfg_.peers[i];
  State& s = state_[i];
  Status why;
  if (exited) {
    why = Status(NEXAR_ERR_PEER_LOST, strprintf("rank %d (pid %d, same host) exited", p.rank, static_cast<int>(p.pid)));
  } else {
    if (p.heartbeat == nullptr) return false;
    const uint64_t v = p.heartbeat->load(std::memory_order_relaxed);
    if (v != s.seen || v == 0) {
      s.seen = v;
      s.silent_ns = 0;
      return false;
    }
    s.silent_ns += step_ns;
    if (static_cast<double>(s.silent_ns) < cfg_.silence_s * 1e9) return false;
    if (cfg_.leaving && cfg_.leaving(p.rank)) {
      s.silent_ns = 0;  // said goodbye: only its exit counts now
      return false;
    }
    // Fence first: once the others act on the verdict, it must never speak again.
    const int err = kill_peer(s.pidfd, p.pid);
    why = Status(NEXAR_ERR_PEER_LOST,
                 strprintf("rank %d (pid %d, same host) made no progress for %.1f s (stopped or hung; "
                           "NEXAR_PEER_TIMEOUT=%g): declared failed%s%s",
                           p.rank, static_cast<int>(p.pid), static_cast<double>(s.silent_ns) / 1e9, cfg_.silence_s,
                           err == 0 ? " and killed" : ", could not kill it: ", err == 0 ? "" : std::strerror(err)));
    NX_WARN(NET, "%s", why.message().c_str());
  }
  s.reported = true;
  cfg_.lost(p.rank, !exited, why);
  return true;
}

}  // namespace nexar::shm
