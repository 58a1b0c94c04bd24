// A wake-up word that may live in shared memory. Threads (of this process or another)
// that wait for something sleep on `seq`; whoever makes that something happen publishes
// it, then rings: a system call only when someone sleeps, nothing otherwise.
//
// Sleeper:  s = seq; sleepers++ (RMW); re-check; futex_wait(seq, s); sleepers--
// Ringer:   publish (release); read sleepers with an RMW; if any: seq++, futex_wake
// Both touch `sleepers` with read-modify-writes (which read the latest value): either the
// ringer's comes later and sees the sleeper, or it comes first and the sleeper's acquires
// the published work. (No fences: ThreadSanitizer does not model them.)
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace nexar::shm {

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

// Call after publishing what a sleeper may be waiting for.
inline void ring(Doorbell* b) {
  if (b->sleepers.fetch_add(0, std::memory_order_acq_rel) != 0) {
    b->seq.fetch_add(1, std::memory_order_release);
    futex_wake_all(&b->seq);
  }
}

// The sleeper's side, in three steps: begin (returns the value to sleep on), then the
// caller re-checks its condition, then sleep (or cancel when the condition holds).
inline uint32_t begin_sleep(Doorbell* b) {
  uint32_t s = b->seq.load(std::memory_order_acquire);
  b->sleepers.fetch_add(1, std::memory_order_acq_rel);
  return s;
}
inline void end_sleep(Doorbell* b) { b->sleepers.fetch_sub(1, std::memory_order_relaxed); }
inline void sleep(Doorbell* b, uint32_t s, int64_t timeout_ns) {
  futex_wait(&b->seq, s, timeout_ns);
  end_sleep(b);
}

}  // namespace nexar::shm
