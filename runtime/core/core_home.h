// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The core a rank's threads go back to when they find themselves elsewhere: its waiting
// threads (p2p::Waiter) and its transport's serving thread (the QUIC endpoint's loop, the
// TCP hub's thread). Unbound (`nexrun --bind-to none`), the ranks of a job that wake each
// other (a datagram wakes the peer's progress thread, which wakes its waiting thread) are
// placed by the scheduler next to their waker: all four threads of two ranks then share
// one core, each spin holds the core its peer needs, and the polls that keep the progress
// thread blind stop. That state lasts (np 2 QUIC 4 B allreduce: 75-190 us against 19 us
// bound to cores, docs/quic-performance.md). A home per rank (a different core each) takes
// each of them back there at most every kIntervalNs (one CoreHome per thread or group of
// threads); the affinity mask is restored at once, so the binding stays what the user
// asked for and the scheduler may still move the thread. With more ranks than cores, the
// ranks that yield the core to each other gather the same way (4 on 2 cores taking turns
// on one), so there a rank's shared-memory waits have a home too: its local index modulo
// the cores, two ranks a core.
#pragma once

#include <atomic>
#include <cstdint>

namespace nexar {

class CoreHome {
 public:
  // cpu < 0: no home (bound to one core already, or none chosen: bootstrap/world.cc).
  void set(int cpu) { cpu_.store(cpu, std::memory_order_relaxed); }
  int cpu() const { return cpu_.load(std::memory_order_relaxed); }

  // The calling thread goes home if it runs elsewhere, home is in its affinity mask and
  // no thread went home in the last kIntervalNs. True when it moved.
  bool return_home();

  static constexpr int64_t kIntervalNs = 2'000'000;

 private:
  std::atomic<int> cpu_{-1};
  std::atomic<int64_t> next_ns_{0};
};

// The home of the local_index-th rank of a host, among the CPUs of this process's
// affinity mask: -1 when the mask holds a single CPU (already bound) or cannot be read.
int home_cpu_for(int local_index);

}  // namespace nexar
