// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// When a transport's serving thread (the QUIC endpoint's loop, the TCP hub's thread) may
// wait without watching its sockets: while waiting threads poll them (one polled within
// the last stale_ns) and none of them sleeps after its spin. Each message then wakes only
// the poller, not also the serving thread, which took the poller's core and read first.
// A Dekker pair: the serving thread sets blind then reads the sleepers; a waiter raises
// the sleepers then reads blind; one of the two sees the other, so a sleeper is never left
// with a blind serving thread that was not woken.
#pragma once

#include <atomic>
#include <cstdint>

namespace nexar::transport {

class BlindGate {
 public:
  // A waiting thread polled the sockets at now (ns).
  void note_poll(uint64_t now) { last_poll_.store(now, std::memory_order_relaxed); }

  // The serving thread, before it waits: true when it may wait blind. It calls end_blind
  // once that wait is over.
  bool try_blind(uint64_t now, uint64_t stale_ns) {
    if (sleepers_.load(std::memory_order_relaxed) != 0 ||
        now - last_poll_.load(std::memory_order_relaxed) >= stale_ns)
      return false;
    blind_.store(true, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return true;
    blind_.store(false, std::memory_order_relaxed);
    return false;
  }
  void end_blind() { blind_.store(false, std::memory_order_relaxed); }

  // A waiting thread goes to sleep after its spin (then blind() says whether to wake the
  // serving thread), and wakes.
  void add_sleeper() { sleepers_.fetch_add(1, std::memory_order_seq_cst); }
  void remove_sleeper() { sleepers_.fetch_sub(1, std::memory_order_seq_cst); }
  bool blind() const { return blind_.load(std::memory_order_seq_cst); }

 private:
  std::atomic<uint64_t> last_poll_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> blind_{false};
};

}  // namespace nexar::transport
