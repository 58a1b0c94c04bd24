// How a thread waits for a request: it drives the transports that need the waiting
// thread's help (shared memory: Progress::poll) while spinning briefly, then sleeps on a
// doorbell that senders and completions ring. No thread hand-off on the fast path, and no
// core burnt once the spin is over (with more ranks than cores the spin yields the CPU).
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "transport/shm/doorbell.h"
#include "transport/shm/progress.h"

namespace nexar::p2p {

using Clock = std::chrono::steady_clock;

using shm::Progress;

// Optionally told when a waiting thread starts and stops polling a Progress in a loop: a
// transport whose own thread watches for the same work steps back meanwhile (the QUIC
// endpoint stops watching its socket, so a datagram wakes no second thread).
class SpinListener {
 public:
  virtual ~SpinListener() = default;
  virtual void spin_begin() = 0;
  // going_to_sleep: the spin found nothing and the thread now sleeps on its doorbell.
  virtual void spin_end(bool going_to_sleep) = 0;
};

class Waiter {
 public:
  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  // Set before any request uses this waiter (bootstrap), or reset to the private bell.
  // bell: where completions and senders ring (may be shared memory); progress: polled
  // while waiting (may be null); spin_ns: how long to poll before sleeping; yield: give up
  // the CPU between polls (more ranks than cores).
  // listener (may be null) hears when a wait starts and ends its spin.
  void configure(shm::Doorbell* bell, Progress* progress, int64_t spin_ns, bool yield,
                 SpinListener* listener = nullptr);
  void reset() { configure(nullptr, nullptr, 0, false); }

  shm::Doorbell* bell() { return bell_; }
  void ring() { shm::ring(bell_); }
  void poll() {
    if (progress_) progress_->poll();
  }

  // Waits until done() or deadline; true if done.
  template <class Done>
  bool wait(Done&& done, Clock::time_point deadline);

  // The waiter of requests that belong to no engine.
  static Waiter& fallback();

 private:
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  static constexpr int64_t kHardSpinNs = 3000;
  static constexpr int64_t kLostCpuNs = 100000;
  // Hard spinning pays while it catches messages; score counts recent outcomes.
  int64_t hard_spin_ns() {
    const int n = waits_.fetch_add(1, std::memory_order_relaxed);
    return score_.load(std::memory_order_relaxed) > 0 || (n & 15) == 0 ? kHardSpinNs : 0;
  }
  void learn(bool caught_while_hard) {
    int s = score_.load(std::memory_order_relaxed);
    s = caught_while_hard ? std::min(s + 1, 8) : std::max(s - 2, -8);
    score_.store(s, std::memory_order_relaxed);
  }

  shm::Doorbell own_bell_;
  shm::Doorbell* bell_ = &own_bell_;
  Progress* progress_ = nullptr;
  SpinListener* listener_ = nullptr;
  int64_t spin_ns_ = 0;
  bool yield_ = false;
  std::atomic<int> score_{1};
  std::atomic<int> waits_{0};
};

template <class Done>
bool Waiter::wait(Done&& done, Clock::time_point deadline) {
  if (done()) return true;
  if (progress_ && spin_ns_ > 0) {
    // Poll hard for a few microseconds (a small message's round trip), then poll and yield
    // the CPU: a peer we woke may be waiting for this core (another rank, or other load).
    // When recent waits only ended after yielding (the peer shares our core), yield at
    // once, re-trying the hard spin now and then.
    const auto start = Clock::now();
    const auto spin_end = std::min(deadline, start + std::chrono::nanoseconds(spin_ns_));
    const int64_t hard = yield_ ? 0 : hard_spin_ns();
    const auto hard_end = start + std::chrono::nanoseconds(std::min<int64_t>(spin_ns_, hard));
    bool hard_phase = hard > 0;
    if (listener_) listener_->spin_begin();
    for (unsigned n = 1;; ++n) {
      progress_->poll();
      if (done()) {
        if (listener_) listener_->spin_end(false);
        // Evidence either way: caught while spinning hard, or right after the first yields
        // (the peer needed our core). A long wait says nothing.
        if (hard > 0) {
          const auto t = Clock::now();
          if (t < hard_end)
            learn(true);
          else if (t < hard_end + std::chrono::nanoseconds(kHardSpinNs))
            learn(false);
        }
        return true;
      }
      if (hard_phase && (n & 7) != 0) {  // spinning hard: read the clock every 8th poll only
        relax();
        continue;
      }
      const auto now = Clock::now();
      if (now >= spin_end) break;
      if (now >= hard_end) {
        hard_phase = false;
        // Yield only to this job's own ranks (yield_: more of them than cores). Under other
        // jobs' load one yield can cost milliseconds (the yielder waits behind every
        // runnable thread; a woken sleeper does not), so then poll on, and sleep as soon
        // as a gap between polls shows the CPU was lost anyway.
        if (yield_) sched_yield(); else relax();
        if (Clock::now() - now > std::chrono::nanoseconds(kLostCpuNs)) break;
      } else {
        relax();
      }
    }
    if (listener_) listener_->spin_end(true);
  }
  shm::Doorbell* b = bell_;
  for (;;) {
    const uint32_t s = shm::begin_sleep(b);
    poll();
    const bool ok = done();
    const auto now = Clock::now();
    if (ok || now >= deadline) {
      shm::end_sleep(b);
      return ok;
    }
    // Wake up at least every second: bounded even if a ring were ever missed.
    const int64_t left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now).count();
    shm::sleep(b, s, std::min<int64_t>(left, 1000000000));
  }
}

}  // namespace nexar::p2p
