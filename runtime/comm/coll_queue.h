// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Runs a communicator's collectives one at a time, in the order they were issued, whether
// blocking or not: every rank then executes them in the same order, as MPI requires of
// non-blocking collectives. A blocking call on an idle queue runs on the caller's thread
// (no task object, no hand-off, no lock: one compare-and-swap to claim the queue and one
// to release it); otherwise a worker thread, started on first need, runs the queue.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "core/status.h"
#include "p2p/request.h"

namespace nexar::comm {

class CollTask {
 public:
  explicit CollTask(std::function<Status()> fn) : fn_(std::move(fn)) {}
  void run();
  bool is_done();
  Status wait_until(p2p::Clock::time_point deadline);
  // Waits until done, NEXAR_ERR_TIMEOUT once it has run for longer than bound. The time
  // it sits queued does not count: the collectives ahead of it bound themselves.
  Status wait_running(p2p::Clock::duration bound);

 private:
  std::function<Status()> fn_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  p2p::Clock::time_point started_at_;
  bool done_ = false;
  Status status_;
};

using CollTaskPtr = std::shared_ptr<CollTask>;

class CollQueue {
 public:
  ~CollQueue();
  // Runs task now on this thread if nothing is queued or running; else queues it and
  // waits. Returns the task's status.
  Status run_blocking(const CollTaskPtr& task);
  // The same for a callable (Status fn()): run directly when the queue is idle, so a
  // blocking collective costs no allocation; wrapped in a task (a copy of fn) otherwise.
  template <class Fn>
  Status run_blocking_fn(const Fn& fn) {
    return run_blocking_fn(fn, [&fn] { return std::make_shared<CollTask>(fn); });
  }
  // The same with the task to queue when the queue is busy made by make_task() (e.g. one
  // the flight recorder shows as queued while it waits).
  template <class Fn, class MakeTask>
  Status run_blocking_fn(const Fn& fn, const MakeTask& make_task) {
    if (!try_begin_inline()) return run_blocking(make_task());
    Status st = fn();
    end_inline();
    return st;
  }
  // Runs fn() on the caller's thread when the queue is idle and returns what it returns
  // (false: fn found the call is not for it); else runs nothing and returns false.
  template <class Fn>
  bool try_run_inline(const Fn& fn) {
    if (!try_begin_inline()) return false;
    const bool ran = fn();
    end_inline();
    return ran;
  }
  // Whether nothing is queued or running: then every collective issued before on this
  // communicator completed, and the acquire load sees what it wrote (the worker and an
  // inline claim release the queue with a release store). A call that runs with no claim
  // on this (api/owned_one_rank.h) is ordered after them.
  bool idle() const { return state_.load(std::memory_order_acquire) == 0; }
  // Queues task for the worker.
  void submit(const CollTaskPtr& task);

 private:
  // Claims the queue for the caller's thread if nothing is queued or running.
  bool try_begin_inline() {
    uint32_t idle = 0;
    return state_.compare_exchange_strong(idle, kBusy, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void end_inline() {
    uint32_t mine = kBusy;  // nothing was queued meanwhile: no lock, nobody to wake
    if (!state_.compare_exchange_strong(mine, 0, std::memory_order_release, std::memory_order_relaxed))
      release_to_worker();
  }
  void release_to_worker();
  void worker_loop();
  // kBusy: a collective runs (inline or on the worker); plus kQueued per queued task.
  // Queued tasks and the worker's claims change it under mu_; an inline claim only
  // succeeds from 0 (idle, nothing queued), so it never overtakes a queued task.
  static constexpr uint32_t kBusy = 1, kQueued = 2;
  std::atomic<uint32_t> state_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<CollTaskPtr> queue_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace nexar::comm
