// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A wake-up word that may live in shared memory. Threads (of this process or another)
// that wait for something sleep on `seq`; whoever makes that something happen publishes
// it, then rings: a system call only when someone sleeps, nothing otherwise.
//
// Sleeper:  s = seq; sleepers++ (RMW); fence; re-check; futex_wait(seq, s); sleepers--
// Ringer:   publish (release); fence; load sleepers; if any: seq++, futex_wake
// Seq-cst fences on both sides (Dekker): either the ringer sees the sleeper or the
// sleeper's re-check sees the published work. The ringer only reads the word, so with
// nobody asleep its cache line stays shared by every rank that rings it: a ring costs a
// fence, no cache-line transfer (a read-modify-write there moved the line between cores
// on every message). The work itself is published with release/acquire on its own data,
// which is what ThreadSanitizer checks; a wake-up lost here would only delay a sleeper
// to its bounded timeout. ThreadSanitizer builds (GCC refuses fences there) use
// read-modify-writes of `sleepers` on both sides instead, which order the same way.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace nexar::transport {

struct Doorbell {
  std::atomic<uint32_t> seq{0};
  std::atomic<uint32_t> sleepers{0};
};
static_assert(std::atomic<uint32_t>::is_always_lock_free, "futex words must be lock-free");

// Shared (not FUTEX_PRIVATE) operations: the word may be mapped by several processes.
inline void futex_wake_all(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// Sleeps while *word == expected, at most timeout_ns (spurious returns are fine).
inline void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, int64_t timeout_ns) {
  if (timeout_ns <= 0) return;
  timespec ts{static_cast<time_t>(timeout_ns / 1000000000), static_cast<long>(timeout_ns % 1000000000)};
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

#if defined(__SANITIZE_THREAD__)
inline void full_fence() {}
inline uint32_t read_sleepers(Doorbell* b) { return b->sleepers.fetch_add(0, std::memory_order_acq_rel); }
#else
inline void full_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline uint32_t read_sleepers(Doorbell* b) {
  full_fence();
  return b->sleepers.load(std::memory_order_relaxed);
}
#endif

// Call after publishing what a sleeper may be waiting for.
inline void ring(Doorbell* b) {
  if (read_sleepers(b) != 0) {
    b->seq.fetch_add(1, std::memory_order_release);
    futex_wake_all(&b->seq);
  }
}

// The sleeper's side, in three steps: begin (returns the value to sleep on), then the
// caller re-checks its condition, then sleep (or cancel when the condition holds).
inline uint32_t begin_sleep(Doorbell* b) {
  uint32_t s = b->seq.load(std::memory_order_acquire);
  b->sleepers.fetch_add(1, std::memory_order_seq_cst);
  full_fence();
  return s;
}
inline void end_sleep(Doorbell* b) { b->sleepers.fetch_sub(1, std::memory_order_relaxed); }
inline void sleep(Doorbell* b, uint32_t s, int64_t timeout_ns) {
  futex_wait(&b->seq, s, timeout_ns);
  end_sleep(b);
}

}  // namespace nexar::transport
