// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A thread that calls on_due at (or just after) the earliest armed deadline. The server
// uses it to wake the progress thread (through Endpoint::post) for long-poll timeouts,
// so that nothing on the progress thread sleeps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace nexar::rendezvous {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // on_due runs on the timer's thread, once per firing; the deadline is forgotten before.
  explicit DeadlineTimer(std::function<void()> on_due);
  ~DeadlineTimer();  // stops and joins the thread; on_due does not run afterwards
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Thread-safe: fire no later than t (an earlier armed deadline stays).
  void arm(Clock::time_point t);

 private:
  void run();

  std::function<void()> on_due_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Clock::time_point> next_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace nexar::rendezvous
