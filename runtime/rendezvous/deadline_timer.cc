// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/deadline_timer.h"

#include "core/thread_name.h"

namespace nexar::rendezvous {

DeadlineTimer::DeadlineTimer(std::function<void()> on_due)
    : on_due_(std::move(on_due)), thread_([this] { run(); }) {}

DeadlineTimer::~DeadlineTimer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void DeadlineTimer::arm(Clock::time_point t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ && *next_ <= t) return;
    next_ = t;
  }
  cv_.notify_all();
}

void DeadlineTimer::run() {
  name_this_thread("nexar-rdv-timer");
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!next_) {
      cv_.wait(lock);
      continue;
    }
    if (Clock::now() < *next_) {
      cv_.wait_until(lock, *next_);
      continue;  // re-check: stopped, re-armed earlier, or due
    }
    next_.reset();
    lock.unlock();
    on_due_();
    lock.lock();
  }
}

}  // namespace nexar::rendezvous
