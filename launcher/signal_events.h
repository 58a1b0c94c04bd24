// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Signals as events: nexrun blocks SIGCHLD and the signals it forwards (SIGINT, SIGTERM,
// SIGHUP, SIGUSR1, SIGUSR2) and reads them from a signalfd in its event loop. Open this
// before any thread starts so every thread inherits the mask. SIGPIPE is ignored (a closed
// stdout must not kill the launcher while ranks run).
#pragma once

#include <sys/types.h>

#include <vector>

#include "core/status.h"

namespace nexar::launcher {

struct SignalEvent {
  int signo = 0;
  // SIGCHLD: the child whose change raised it. SIGCHLD does not queue: while one is pending
  // further children's are merged into it, so this is the first of them to end.
  pid_t pid = 0;
};

class SignalEvents {
 public:
  SignalEvents() = default;
  ~SignalEvents();
  SignalEvents(const SignalEvents&) = delete;
  SignalEvents& operator=(const SignalEvents&) = delete;

  Status open();
  int fd() const { return fd_; }
  // Every pending signal, oldest first (never blocks).
  std::vector<SignalEvent> read_pending();

  // In a forked child, before exec (async-signal-safe): the mask and SIGPIPE disposition
  // nexrun started with.
  static void restore_in_child();

 private:
  int fd_ = -1;
};

}  // namespace nexar::launcher
