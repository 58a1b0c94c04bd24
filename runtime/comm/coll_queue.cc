// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/coll_queue.h"

#include "core/thread_name.h"

namespace nexar::comm {

void CollTask::run() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    started_at_ = p2p::Clock::now();
  }
  cv_.notify_all();
  Status st = fn_();
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  status_ = st;
  cv_.notify_all();
}

bool CollTask::is_done() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

Status CollTask::wait_until(p2p::Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  // The task bounds its own transfers; this outer bound only guards against a bug.
  if (!cv_.wait_until(lock, deadline, [&] { return done_; }))
    return Status(NEXAR_ERR_TIMEOUT, "collective did not complete in time");
  return status_;
}

Status CollTask::wait_running(p2p::Clock::duration bound) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return started_ || done_; });
  if (!cv_.wait_until(lock, started_at_ + bound, [&] { return done_; }))
    return Status(NEXAR_ERR_TIMEOUT, "collective did not complete in time");
  return status_;
}

CollQueue::~CollQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void CollQueue::release_to_worker() {
  std::lock_guard<std::mutex> lock(mu_);
  state_.fetch_and(~kBusy, std::memory_order_release);
  cv_.notify_all();  // the worker's turn
}

Status CollQueue::run_blocking(const CollTaskPtr& task) {
  if (try_begin_inline()) {
    task->run();
    end_inline();
    return task->wait_until(p2p::Clock::now());
  }
  submit(task);
  return task->wait_until(p2p::Clock::now() + std::chrono::hours(24 * 365));
}

void CollQueue::submit(const CollTaskPtr& task) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(task);
  state_.fetch_add(kQueued, std::memory_order_relaxed);
  if (!worker_.joinable()) worker_ = std::thread([this] { worker_loop(); });
  cv_.notify_all();
}

void CollQueue::worker_loop() {
  name_this_thread("nexar-coll");
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] {
      return stop_ || (!(state_.load(std::memory_order_acquire) & kBusy) && !queue_.empty());
    });
    if (queue_.empty() && stop_) return;
    if (queue_.empty()) continue;
    CollTaskPtr t = queue_.front();
    queue_.pop_front();
    // Not busy and a task queued: no inline claim can succeed meanwhile (it needs 0).
    state_.fetch_sub(kQueued - kBusy, std::memory_order_acquire);
    lock.unlock();
    t->run();
    lock.lock();
    state_.fetch_and(~kBusy, std::memory_order_release);
    cv_.notify_all();
  }
}

}  // namespace nexar::comm
