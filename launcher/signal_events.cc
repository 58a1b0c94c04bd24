// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/signal_events.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nexar::launcher {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

// Saved by open() for restore_in_child(); written once before any fork.
sigset_t g_original_mask;
struct sigaction g_original_sigpipe;

}  // namespace

Status SignalEvents::open() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int s : kForwarded) sigaddset(&set, s);
  if (pthread_sigmask(SIG_BLOCK, &set, &g_original_mask) != 0)
    return Status(NEXAR_ERR_SYSTEM, "blocking signals failed");
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &g_original_sigpipe);
  fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) return Status(NEXAR_ERR_SYSTEM, strprintf("signalfd: %s", std::strerror(errno)));
  return Status::Ok();
}

SignalEvents::~SignalEvents() {
  if (fd_ >= 0) close(fd_);
}

std::vector<SignalEvent> SignalEvents::read_pending() {
  std::vector<SignalEvent> out;
  signalfd_siginfo info[16];
  for (;;) {
    ssize_t n = read(fd_, info, sizeof(info));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (size_t i = 0; i < static_cast<size_t>(n) / sizeof(info[0]); ++i)
      out.push_back({static_cast<int>(info[i].ssi_signo), static_cast<pid_t>(info[i].ssi_pid)});
  }
  return out;
}

void SignalEvents::restore_in_child() {
  sigaction(SIGPIPE, &g_original_sigpipe, nullptr);
  sigprocmask(SIG_SETMASK, &g_original_mask, nullptr);
}

}  // namespace nexar::launcher
