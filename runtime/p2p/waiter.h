// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
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

#include "core/core_home.h"
#include "transport/doorbell.h"
#include "transport/progress.h"

namespace nexar::p2p {

using Clock = std::chrono::steady_clock;

using transport::Progress;

// Optionally told when a waiting thread starts and stops polling a Progress in a loop: a
// transport whose own thread watches for the same work steps back meanwhile (the QUIC
// endpoint stops watching its socket, so a datagram wakes no second thread).
class SpinListener {
 public:
  virtual ~SpinListener() = default;
  virtual void spin_begin() = 0;
  // going_to_sleep: the spin found nothing and the thread now sleeps on its doorbell;
  // sleep_end() follows when that wait is over.
  virtual void spin_end(bool going_to_sleep) = 0;
  virtual void sleep_end() = 0;
};

// How a spin shares the CPU once its hard part (a few microseconds) is over.
enum class SpinYield {
  kNever,      // poll on (shared memory: the peer runs on another core)
  kAfterHard,  // then yield every kPollsPerYield-th poll: threads this one waits for may need
               // the core (the peer, the QUIC progress threads: 2 ranks on 2 cores are 4
               // threads), but every yield may hand the core to other load for its slice
  kAlways,     // from the first poll, no hard spin (more of this job's ranks than cores)
  kAfterSpin,  // as kAfterHard, but only once the wait outlasted its spin time (a transfer
               // that keeps moving): TCP's hub thread needs no core while waits poll (it is
               // blind), and a yield gave the core to any other runnable thread for its
               // whole slice, ~1.5 ms, in the middle of a 1 MiB exchange
};

class Waiter {
 public:
  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  // Set before any request uses this waiter (bootstrap), or reset to the private bell.
  // bell: where completions and senders ring (may be shared memory); progress: polled
  // while waiting (may be null); spin_ns: how long to poll before sleeping; yield: when to
  // give up the CPU between polls. listener (may be null) hears when a wait starts and ends
  // its spin.
  void configure(transport::Doorbell* bell, Progress* progress, int64_t spin_ns, SpinYield yield,
                 SpinListener* listener = nullptr);
  void reset() {
    configure(nullptr, nullptr, 0, SpinYield::kNever);
    home_.set(-1);
  }

  // Where a wait's thread returns when it ends elsewhere (core/core_home.h); none by default.
  CoreHome& home() { return home_; }

  transport::Doorbell* bell() { return bell_; }
  void ring() { transport::ring(bell_); }
  void poll() {
    if (progress_) (void)progress_->poll();
  }

  // Waits until done() or deadline; true if done. spin = false: sleeps on the doorbell
  // after one look, without the spin (the caller knows the wait will be long).
  template <class Done>
  bool wait(Done&& done, Clock::time_point deadline, bool spin = true);

  // The waiter of requests that belong to no engine.
  static Waiter& fallback();

 private:
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  static constexpr int64_t kHardSpinNs = 3000;
  // kAfterHard: polls between two yields (a poll of an idle socket is a system call, about
  // 1-2 us). Yielding at every poll gave the core away to other load's threads for their
  // slice again and again: at load 13 on 2 cores a QUIC 4 B allreduce took 63-190 us with a
  // yield per poll, 17-40 us with one per 16 polls (docs/quic-performance.md).
  static constexpr unsigned kPollsPerYield = 16;
  static constexpr int64_t kLostCpuNs = 100000;
  // A spin whose polls keep moving data lasts at most this many spin times (with the
  // default 200 us of NEXAR_TCP_SPIN_US and NEXAR_QUIC_SPIN_US: 8 ms), so a thread
  // waiting for one message among a stream of others still sleeps.
  static constexpr int kMovingSpins = 40;
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

  // The end of every wait: back to the home core if there is one and it ran elsewhere.
  void ended() {
    if (home_.cpu() >= 0) (void)home_.return_home();
  }

  transport::Doorbell own_bell_;
  transport::Doorbell* bell_ = &own_bell_;
  Progress* progress_ = nullptr;
  SpinListener* listener_ = nullptr;
  int64_t spin_ns_ = 0;
  SpinYield yield_ = SpinYield::kNever;
  std::atomic<int> score_{1};
  std::atomic<int> waits_{0};
  CoreHome home_;
};

template <class Done>
bool Waiter::wait(Done&& done, Clock::time_point deadline, bool spin) {
  if (done()) return true;
  bool told_sleep = false;  // the listener heard spin_end(true): it hears sleep_end() too
  if (progress_ && spin_ns_ > 0 && spin) {
    // Poll hard for a few microseconds (a small message's round trip), then poll and yield
    // the CPU: a peer we woke may be waiting for this core (another rank, or other load).
    // When recent waits only ended after yielding (the peer shares our core), yield at
    // once, re-trying the hard spin now and then.
    const auto start = Clock::now();
    const int64_t hard = yield_ == SpinYield::kAlways ? 0 : hard_spin_ns();
    const auto spin_ns = std::chrono::nanoseconds(spin_ns_);
    const auto first_end = start + spin_ns;  // kAfterSpin yields from here on
    auto spin_end = std::min(deadline, first_end);
    // A poll that moved something (a large payload arriving piece by piece, or leaving as
    // the socket takes it) restarts the spin, up to this bound: a transfer longer than the
    // spin no longer ends in a sleep and two hand-offs (the serving thread, then the bell).
    const auto moving_end = std::min(deadline, start + kMovingSpins * spin_ns);
    const auto hard_end = start + std::chrono::nanoseconds(std::min<int64_t>(spin_ns_, hard));
    bool hard_phase = hard > 0;
    if (listener_) listener_->spin_begin();
    for (unsigned n = 1;; ++n) {
      const bool moved = progress_->poll();
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
        ended();
        return true;
      }
      if (moved) spin_end = std::max(spin_end, std::min(moving_end, Clock::now() + spin_ns));
      if (hard_phase && (n & 7) != 0) {  // spinning hard: read the clock every 8th poll only
        relax();
        continue;
      }
      const auto now = Clock::now();
      if (now >= spin_end) break;
      if (now >= hard_end) {
        hard_phase = false;
        // Yield for this job's own threads: its ranks (kAlways: more of them than cores), or
        // the peer and the QUIC progress threads (kAfterHard, now and then: never yielding
        // starved them, 2 ranks on 2 cores being 4 threads; yielding at every poll gave the
        // core to other jobs' threads).
        const bool may_yield = yield_ == SpinYield::kAfterHard || (yield_ == SpinYield::kAfterSpin && now >= first_end);
        if (yield_ == SpinYield::kAlways || (may_yield && n % kPollsPerYield == 0))
          sched_yield();
        else
          relax();
        // A gap between polls shows the CPU was lost to other load: a shared-memory wait
        // that never yields (kNever) sleeps then. A wait on a socket (kAfterHard: QUIC or
        // TCP) polls on to its bound whatever the CPU did, and nothing carries over to the
        // next wait: sleeping at a lost CPU, and right after the hard spin for the 256 waits
        // after it, made one preemption cost 256 wake-up chains and a run's 4 B median
        // depend on when the preemptions came (load 15 on 2 cores: 143-261 us, against
        // 72-128 us polling on; docs/quic-performance.md). Yielding at every poll (kAlways)
        // a gap is what the yield is for: a rank sharing the core ran, most often the one
        // waited for; sleeping then added a wake-up (50-100 us here) to a collective's
        // rounds instead of looking again as soon as the core comes back.
        if (yield_ == SpinYield::kNever && Clock::now() - now > std::chrono::nanoseconds(kLostCpuNs)) break;
      } else {
        relax();
      }
    }
    if (listener_) listener_->spin_end(true);
    told_sleep = listener_ != nullptr;
  }
  transport::Doorbell* b = bell_;
  for (;;) {
    const uint32_t s = transport::begin_sleep(b);
    poll();
    const bool ok = done();
    const auto now = Clock::now();
    if (ok || now >= deadline) {
      transport::end_sleep(b);
      if (told_sleep) listener_->sleep_end();
      ended();
      return ok;
    }
    // Wake up at least every second: bounded even if a ring were ever missed.
    const int64_t left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now).count();
    transport::sleep(b, s, std::min<int64_t>(left, 1000000000));
  }
}

}  // namespace nexar::p2p
