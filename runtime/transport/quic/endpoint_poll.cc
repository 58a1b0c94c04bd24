// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The endpoint's lock, and the work threads other than the progress thread do under it:
// a sender writes its own packets (try_run), a waiting thread reads the socket itself
// (poll). Either way no thread hand-off (an eventfd or futex wake-up, tens of microseconds
// on a VM) lies between a message and the thread that sends or awaits it. Closes stay on
// the progress thread: a direct worker only requests them (need_loop) and wakes it.
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {

thread_local const EndpointImpl* EndpointImpl::inside_ = nullptr;

namespace {
// A timer armed for within this much that no longer matches the earliest expiry would
// wake the loop for nothing: re-armed. Farther out, a stale timer costs one spare wake-up.
constexpr ngtcp2_tstamp kStaleTimerNs = 2 * NGTCP2_MILLISECONDS;
// How long a sender waits for the progress thread to let go of the lock before it posts.
constexpr ngtcp2_tstamp kLockSpinNs = 20 * NGTCP2_MICROSECONDS;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

bool EndpointImpl::lock_briefly() {
  if (io_mu_.try_lock()) return true;
  const ngtcp2_tstamp give_up = now_ns() + kLockSpinNs;
  do {
    for (int i = 0; i < 64; ++i) relax();
    if (io_mu_.try_lock()) return true;
  } while (now_ns() < give_up);
  return false;
}

void EndpointImpl::enter_direct() {
  inside_ = this;
  direct_ = true;
}

void EndpointImpl::leave_direct() {
  // A packet just written sets ngtcp2's pacing slot, usually already past for a small one:
  // serve such expiries here, or the armed timer would wake the progress thread for it.
  for (int round = 0; round < 2; ++round) {
    const ngtcp2_tstamp now = now_ns();
    if (!service_timers(now)) break;
    write_all_dirty(now);
  }
  // What was done moved the earliest expiry: sooner (pacing, loss detection, a delayed
  // ACK), or later (the ACK the timer waited for went out with the packets just written).
  // While threads spin in poll(), they run the timers: the last one out re-arms it.
  if (spinners_.load(std::memory_order_seq_cst) > 0)
    timer_stale_.store(true, std::memory_order_relaxed);
  else
    rearm_timer();
  expiry_hint_.store(next_expiry(), std::memory_order_relaxed);
  const bool wake_loop = need_loop_ || want_writable_ || !dirty_.empty();
  need_loop_ = false;
  direct_ = false;
  inside_ = nullptr;
  io_mu_.unlock();
  if (wake_loop) wake();
}

bool EndpointImpl::try_run(void (*fn)(void*), void* arg) {
  if (inside_ == this) {  // inside a callback: whoever called it writes afterwards
    fn(arg);
    return true;
  }
  if (!lock_briefly()) return false;
  enter_direct();
  fn(arg);
  write_all_dirty(now_ns());
  leave_direct();
  return true;
}

size_t EndpointImpl::poll() {
  // Never nested, and never ahead of a progress thread that waits for the lock (timers,
  // closes, posted work): a spinning poller would otherwise starve it.
  if (inside_ == this) return 0;
  const ngtcp2_tstamp t = now_ns();
  gate_.note_poll(t);  // the loop stays blind while this is fresh
  // Nothing queued and no timer due: return without the lock. A spinner that held it across
  // every recvmmsg was often preempted holding it when other jobs loaded the machine, and
  // everything else waited for its next time slice (milliseconds).
  const bool readable = socket_.readable();
  if (!readable && t < expiry_hint_.load(std::memory_order_relaxed)) return 0;
  if (loop_wants_lock_.load(std::memory_order_relaxed) || !io_mu_.try_lock()) return 0;
  enter_direct();
  const ngtcp2_tstamp rx = now_ns();
  // Taken for a timer alone (usually the delayed ACK of the message just read): the peek
  // found the socket empty, so no recvmmsg; a datagram arriving since is the next poll's.
  size_t n = 0;
  if (readable) {
    n = receive(rx);
    if (n == 0) polled_empty_.fetch_add(1, std::memory_order_relaxed);
  }
  const ngtcp2_tstamp now = n > 0 ? now_ns() : rx;
  const bool timers = service_timers(now);
  if (n == 0 && !timers && dirty_.empty()) {  // the common idle spin: nothing to re-arm
    direct_ = false;
    inside_ = nullptr;
    io_mu_.unlock();
    return 0;
  }
  write_all_dirty(now);
  polled_.fetch_add(n, std::memory_order_relaxed);
  leave_direct();
  return n;
}

Endpoint::Stats EndpointImpl::stats() const {
  Stats s;
  s.polled_datagrams = polled_.load(std::memory_order_relaxed);
  s.polled_empty_reads = polled_empty_.load(std::memory_order_relaxed);
  s.packets_without_data = packets_without_data_.load(std::memory_order_relaxed);
  s.alarms = alarms_.load(std::memory_order_relaxed);
  s.bulk_polls = bulk_polls_.load(std::memory_order_relaxed);
  return s;
}

void EndpointImpl::enter_spin() { spinners_.fetch_add(1, std::memory_order_seq_cst); }

void EndpointImpl::leave_spin(bool going_to_sleep) {
  // BlindGate's Dekker pair with run(). A thread that goes to sleep needs the
  // loop to watch the socket now (and to run the timers: woken, it looks at both).
  if (going_to_sleep) gate_.add_sleeper();
  const bool last = spinners_.fetch_sub(1, std::memory_order_seq_cst) == 1;
  const bool blind = gate_.blind();
  if (going_to_sleep && blind) return wake();
  // One that got its message leaves a blind loop be: it looks again within its bound, and
  // the delayed ACK the spin left behind usually leaves sooner, with this thread's next
  // packet or in its next poll. Arming the alarm for it cost a timerfd_settime and often a
  // progress-thread wake-up per message (a core taken from a spinning rank).
  if (!last || blind) return;
  if (!timer_stale_.load(std::memory_order_relaxed) || inside_ == this || !lock_briefly()) return;
  // The loop sleeps watching the socket with a timeout that predates what the spin changed.
  // Whoever holds the lock when we fail re-arms it (spinners_ is 0 now), or the loop does
  // when it looks again.
  rearm_timer();
  io_mu_.unlock();
}

void EndpointImpl::leave_sleep() { gate_.remove_sleeper(); }

void EndpointImpl::rearm_timer() {
  timer_stale_.store(false, std::memory_order_relaxed);
  const ngtcp2_tstamp now = now_ns();
  // A blind loop looks again within kBlindBoundNs and the pollers run the timers: an ACK
  // waits for them (its peer's loss detection allows max_ack_delay, 25 ms). Armed for the
  // delayed ACK of each message read, the alarm woke the loop ~0.3 times per 4 B exchange
  // at np 2 (a core taken from a spinning rank, the lock taken ahead of the poller), and
  // holding ACKs (ack_hold.h) made a 4 B allreduce slower instead of faster.
  const ngtcp2_tstamp next = next_expiry(!gate_.blind());
  // Only what the loop's own timeout would miss; a near alarm that no longer matches is
  // moved (or dropped), or it would wake the loop for nothing.
  const ngtcp2_tstamp target = next < deadline_ ? next : UINT64_MAX;
  if (target < armed_ || (target != armed_ && armed_ < now + kStaleTimerNs)) arm_timer(target);
}

void EndpointImpl::arm_timer(ngtcp2_tstamp at) {
  if (at == armed_) return;
  itimerspec its{};
  if (at != UINT64_MAX) {  // absolute CLOCK_MONOTONIC (now_ns()'s clock); 0 would disarm
    its.it_value.tv_sec = static_cast<time_t>(at / NGTCP2_SECONDS);
    its.it_value.tv_nsec = static_cast<long>(at % NGTCP2_SECONDS);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  }
  if (::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &its, nullptr) != 0) {
    NX_WARN(NET, "timerfd_settime: %s", std::strerror(errno));
    return;
  }
  armed_ = at;
}

void EndpointImpl::write_all_dirty(ngtcp2_tstamp now) {
  // A write may make another connection (or itself) dirty: a few passes; the rest is left
  // for the loop's next turn (which then does not sleep).
  for (int pass = 0; pass < 4 && !dirty_.empty(); ++pass) write_dirty(now);
}

}  // namespace nexar::quic
