#include "comm/coll_queue.h"

namespace nexar::comm {

void CollTask::run() {
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

CollQueue::~CollQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool CollQueue::try_begin_inline() {
  std::lock_guard<std::mutex> lock(mu_);
  if (busy_ || !queue_.empty()) return false;
  busy_ = true;
  return true;
}

void CollQueue::end_inline() {
  std::lock_guard<std::mutex> lock(mu_);
  busy_ = false;
  if (!queue_.empty()) cv_.notify_all();  // the worker's turn
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
  if (!worker_.joinable()) worker_ = std::thread([this] { worker_loop(); });
  cv_.notify_all();
}

void CollQueue::worker_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || (!busy_ && !queue_.empty()); });
    if (queue_.empty() && stop_) return;
    if (queue_.empty()) continue;
    CollTaskPtr t = queue_.front();
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    t->run();
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace nexar::comm
