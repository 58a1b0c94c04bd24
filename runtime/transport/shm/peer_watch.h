// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Watches processes of this job on this host (docs/architecture.md "Failure"). One thread:
//  - learns at once that a watched process exited: its pidfd turns readable (kill(pid, 0)
//    every tick where pidfd_open is missing);
//  - for peers that publish a heartbeat in shared memory (inbox.h), declares failed one
//    whose heartbeat stood still for `silence_s` (NEXAR_PEER_TIMEOUT): a stopped (SIGSTOP)
//    or hung process. The silent peer is killed (SIGKILL through its pidfd) before it is
//    reported, so the verdict is final: it can never resume and write again (fail-stop);
//  - beats this process's own heartbeat every tick.
// Silence is counted in this thread's own ticks, each at most 4 ticks long: when this
// process was stalled itself (stopped, starved of CPU), its peers get a fresh chance
// instead of the blame. A heartbeat still 0 (the peer has not started watching yet) is
// never counted. Nothing here touches a message's path: the fast path pays nothing.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "core/status.h"

namespace nexar::shm {

struct WatchedPeer {
  int rank = -1;
  pid_t pid = 0;
  const std::atomic<uint64_t>* heartbeat = nullptr;  // the peer's, in shared memory; null: exit only
};

class PeerWatch {
 public:
  // Called on the watch thread, at most once per peer: PEER_LOST naming the peer and why;
  // `silent`: declared failed for its silence (and killed), else it exited.
  using LostFn = std::function<void(int rank, bool silent, const Status& why)>;
  struct Config {
    std::vector<WatchedPeer> peers;
    std::atomic<uint64_t>* own_heartbeat = nullptr;  // beaten every tick (may be null)
    double silence_s = 5;
    int64_t tick_ns = 100 * 1000 * 1000;
    LostFn lost;
    // True when the peer said goodbye: its heartbeat may stop (its world is gone) while
    // the process lives on; only its exit is reported then. May be null.
    std::function<bool(int rank)> leaving;
  };

  // Opens the pidfds and starts the thread.
  explicit PeerWatch(Config cfg);
  ~PeerWatch();  // stops the thread; nothing is reported after it returns
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;

 private:
  struct State {
    int pidfd = -1;
    uint64_t seen = 0;
    int64_t silent_ns = 0;
    bool reported = false;
  };
  void run();
  // True (and reported) when peer i exited or was declared failed this tick.
  bool check(size_t i, bool exited, int64_t step_ns);

  const Config cfg_;
  std::vector<State> state_;  // parallel to cfg_.peers
  int stop_fd_ = -1;          // eventfd
  std::thread thread_;
};

// pidfd_open(2), -1 with errno where the kernel lacks it.
int pidfd_open(pid_t pid);

}  // namespace nexar::shm
