// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "nexar_torch/deferred_start.h"

#include "nexar_torch/work.h"

#include <pthread.h>

#include <thread>

namespace nexar_torch {

namespace {
// Ticks without a deferral before the starter thread sleeps until the next one (a process
// that stopped calling collectives costs no wake-ups; one calling them costs one per tick).
constexpr int kIdleTicks = 200;
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

void DeferredStart::run() {
  pthread_setname_np(pthread_self(), "nexar-starter");  // tells it apart in /proc and profiles
  std::unique_lock<std::mutex> lock(mu_);
  int idle = 0;
  for (;;) {
    if (idle >= kIdleTicks && !pending_) {
      sleeping_ = true;
      cv_.wait(lock, [this] { return static_cast<bool>(pending_); });
      sleeping_ = false;
      idle = 0;
    }
    const uint64_t seen = deferrals_;
    const bool had = static_cast<bool>(pending_);
    cv_.wait_for(lock, kTick);
    if (deferrals_ != seen) {
      idle = 0;
      continue;
    }
    ++idle;
    if (had && pending_) {  // the same collective, pending for a whole tick: nobody needs it soon
      c10::intrusive_ptr<NexarWork> started = start_locked();
      lock.unlock();
      started.reset();
      lock.lock();
    }
  }
}

}  // namespace nexar_torch
