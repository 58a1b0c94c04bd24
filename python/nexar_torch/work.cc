// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "nexar_torch/work.h"

#include "nexar_torch/deferred_start.h"
#include "nexar_torch/torch_args.h"

#include <ATen/core/jit_type.h>

#include <pthread.h>

#include <algorithm>

namespace nexar_torch {

std::string InFlight::wait_all(const char *what) {
  std::string error;
  for (nexar_request_t &req : requests) {
    if (req == nullptr) continue;
    nexar_status_t status{};
    nexar_result_t rc = want_source ? nexar_wait_status(req, &status) : nexar_wait(req);
    if (want_source) source = status.source;
    req = nullptr;
    if (rc != NEXAR_SUCCESS && error.empty()) error = failure_text(what, rc, nexar_comm_last_error(nullptr));
  }
  requests.clear();
  if (start_rc != NEXAR_SUCCESS) error = start_error;
  return error;
}

namespace {
std::mutex g_completers_mu;
std::vector<std::weak_ptr<Completer>> g_completers;
}  // namespace

std::shared_ptr<Completer> Completer::make() {
  auto c = std::make_shared<Completer>();
  std::lock_guard<std::mutex> lock(g_completers_mu);
  g_completers.erase(std::remove_if(g_completers.begin(), g_completers.end(),
                                    [](const std::weak_ptr<Completer> &w) { return w.expired(); }),
                     g_completers.end());
  g_completers.push_back(c);
  return c;
}

void Completer::stop_all() {
  std::vector<std::shared_ptr<Completer>> live;
  {
    std::lock_guard<std::mutex> lock(g_completers_mu);
    for (const auto &w : g_completers)
      if (auto c = w.lock()) live.push_back(std::move(c));
  }
  for (const auto &c : live) c->stop();
}

Completer::~Completer() { stop(); }

bool Completer::post(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return false;
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  jobs_.push_back(std::move(job));
  cv_.notify_one();
  return true;
}

void Completer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void Completer::run() {
  pthread_setname_np(pthread_self(), "nexar-complete");  // tells it apart in /proc and profiles
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopped_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopped and drained
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // drop what it held (a Work, buffers) before taking the lock again
    lock.lock();
  }
}

NexarWork::NexarWork(int rank, c10d::OpType type, const char *what, nexar_comm_t comm,
                     std::weak_ptr<Completer> completer)
    : c10d::Work(rank, type), what_(what), comm_(comm), completer_(std::move(completer)) {}

void NexarWork::start_async() {
  flight.requests.push_back(nullptr);
  record_start(flight.call(&flight.requests.back()));
}

void NexarWork::record_start(nexar_result_t rc) {
  if (rc == NEXAR_SUCCESS) return;
  flight.start_rc = rc;
  flight.start_error = failure_text(what_, rc, nexar_comm_last_error(comm_));
}

NexarWork::~NexarWork() {
  if (flight.requests.empty()) return;
  // Dropped before completion: the buffers stay alive until nexar is done with them.
  for (at::Tensor &t : outputs) flight.keep_alive.push_back(std::move(t));
  auto job = [f = std::make_shared<InFlight>(std::move(flight)), what = what_] { f->wait_all(what); };
  auto completer = completer_.lock();
  if (!completer || !completer->post(job)) job();
}

void NexarWork::complete() {
  std::lock_guard<std::mutex> drive(complete_mu_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
  }
  std::string error;
  if (DeferredStart::get().take(this)) {
    nexar_result_t rc = flight.call(nullptr);  // blocking, on this thread
    if (rc != NEXAR_SUCCESS) error = failure_text(what_, rc, nexar_comm_last_error(comm_));
  } else {
    error = flight.wait_all(what_);
  }
  if (flight.want_source) source_rank = flight.source;
  if (error.empty() && on_success) {
    try {
      on_success();
    } catch (const std::exception &e) {
      error = std::string("nexar ") + what_ + ": " + e.what();
    }
  }
  flight.keep_alive.clear();
  finish_with(error);
}

void NexarWork::finish_with(const std::string &error) {
  std::exception_ptr exc = error.empty() ? nullptr : std::make_exception_ptr(std::runtime_error(error));
  c10::intrusive_ptr<c10::ivalue::Future> fut;
  {
    // c10d::Work::finish's state change, and the Future's claim, under one lock (no
    // recordFunctionEndCallback_: the Work is made without a profiling title).
    std::lock_guard<std::mutex> lock(mutex_);
    completed_ = true;
    exception_ = exc;
    if (future_ && !future_done_) {
      future_done_ = true;
      fut = future_;
    }
  }
  cv_.notify_all();
  if (!fut) return;
  if (exc)
    fut->setError(exc);
  else
    fut->markCompleted(c10::IValue(outputs));
}

bool NexarWork::isCompleted() {
  DeferredStart::get().start(this);  // a deferred collective is tested once started
  // nexar_test would free a receive without telling its sender: that one completes on the
  // Completer thread (nexar_wait_status), and is done when the thread is.
  if (flight.want_source) complete_in_background();
  std::unique_lock<std::mutex> drive(complete_mu_, std::try_to_lock);
  if (drive.owns_lock() && !flight.want_source) {
    bool all_done = true;
    for (nexar_request_t &req : flight.requests) {
      if (req == nullptr) continue;
      int done = 0;
      nexar_result_t rc = nexar_test(req, &done);
      if (!done) {
        all_done = false;
        break;
      }
      req = nullptr;  // freed by the successful (or failed) test
      if (rc != NEXAR_SUCCESS && flight.start_rc == NEXAR_SUCCESS) {
        flight.start_rc = rc;
        flight.start_error = failure_text(what_, rc, nexar_comm_last_error(nullptr));
      }
    }
    drive.unlock();
    if (all_done) complete();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool NexarWork::wait(std::chrono::milliseconds timeout) {
  complete();
  return c10d::Work::wait(timeout);
}

std::vector<at::Tensor> NexarWork::result() { return outputs; }

int NexarWork::sourceRank() const { return source_rank; }

c10::intrusive_ptr<c10::ivalue::Future> NexarWork::getFuture() {
  bool complete_now = false;
  c10::intrusive_ptr<c10::ivalue::Future> fut;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!future_) {
      future_ = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
      if (completed_) {
        future_done_ = true;
        complete_now = true;
      }
    }
    fut = future_;
  }
  if (complete_now) {
    if (exception_)
      fut->setError(exception_);
    else
      fut->markCompleted(c10::IValue(outputs));
  } else {
    complete_in_background();
  }
  return fut;
}

bool NexarWork::handed_off() {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_background_;
}

void NexarWork::complete_in_background() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_ || in_background_) return;
    in_background_ = true;
  }
  auto self = c10::intrusive_ptr<NexarWork>::reclaim_copy(this);
  auto completer = completer_.lock();
  if (!completer || !completer->post([self] { self->complete(); })) complete();
}

}  // namespace nexar_torch
