// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "nexar_torch/deferred_start.h"

#include "nexar_torch/work.h"

#include <pthread.h>

#include <thread>

namespace nexar_torch {

namespace {
// Time without a deferral before the starter thread sleeps until the next one (a process
// that stopped calling collectives costs no wake-ups).
constexpr std::chrono::milliseconds kIdleSpan{200};
}  // namespace

DeferredStart &DeferredStart::get() {
  static DeferredStart *one = new DeferredStart;
  return *one;
}

c10::intrusive_ptr<NexarWork> DeferredStart::start_locked() {
  if (pending_) pending_->start_async();
  return std::move(pending_);
}

void DeferredStart::defer(const c10::intrusive_ptr<NexarWork> &work) {
  c10::intrusive_ptr<NexarWork> started;  // dropped unlocked: its destructor may post to a completer
  std::lock_guard<std::mutex> lock(mu_);
  started = start_locked();
  pending_ = work;
  ++deferrals_;
  if (!thread_started_) {
    thread_started_ = true;
    std::thread([this] { run(); }).detach();  // lives as long as the process, like this object
  } else if (sleeping_) {
    cv_.notify_one();
  }
}

void DeferredStart::flush() {
  c10::intrusive_ptr<NexarWork> started;
  std::lock_guard<std::mutex> lock(mu_);
  started = start_locked();
}

void DeferredStart::start(NexarWork *work) {
  c10::intrusive_ptr<NexarWork> started;
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.get() == work) started = start_locked();
}

bool DeferredStart::take(NexarWork *work) {
  c10::intrusive_ptr<NexarWork> taken;  // the caller holds its own reference
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.get() != work) return false;
  taken = std::move(pending_);
  return true;
}

bool DeferredStart::short_ticks() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::chrono::steady_clock::now() < short_ticks_until_;
}

void DeferredStart::run() {
  pthread_setname_np(pthread_self(), "nexar-starter");  // tells it apart in /proc and profiles
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(mu_);
  Clock::duration idle{0};
  for (;;) {
    if (idle >= kIdleSpan && !pending_) {
      sleeping_ = true;
      cv_.wait(lock, [this] { return static_cast<bool>(pending_); });
      sleeping_ = false;
      idle = Clock::duration{0};
    }
    const uint64_t seen = deferrals_;
    const bool had = static_cast<bool>(pending_);
    // A collective handed to the completer thread gets a quiet look: that thread runs it.
    const bool had_handed = had && pending_->handed_off();
    const Clock::time_point looked = Clock::now();
    const bool short_look = had ? !had_handed : looked < short_ticks_until_;
    cv_.wait_for(lock, short_look ? kTick : kQuietTick);
    if (deferrals_ != seen) {
      idle = Clock::duration{0};
      continue;
    }
    const Clock::time_point now = Clock::now();
    idle += now - looked;
    if (had && pending_) {  // the same collective, pending for a whole look: nobody needs it soon
      const bool handed = pending_->handed_off();
      if (handed && short_look) continue;  // handed over during a short look: a quiet one first
      if (!handed) short_ticks_until_ = now + kAsyncSpan;  // left unattended: look often for a while
      c10::intrusive_ptr<NexarWork> started = start_locked();
      lock.unlock();
      started.reset();
      lock.lock();
    }
  }
}

}  // namespace nexar_torch
