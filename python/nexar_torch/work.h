// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A torch Work over nexar requests, and the thread that completes the ones nobody waits on.
//
// A point-to-point operation starts at once (nexar's non-blocking call, in the caller's
// thread) and its Work holds the requests; a collective is deferred (deferred_start.h) and
// holds nexar's call until it is run blocking or started. Whoever needs the result first
// completes the Work: wait() in the caller's thread (a deferred collective runs there, with
// no thread hand-off), isCompleted() by testing, or the group's Completer thread once
// someone asked for a Future (DDP) or dropped the Work undone. Completion runs or waits,
// runs the copy-out step on success, then finishes the Work and its Future; a nexar
// failure becomes the Work's exception, naming the call.
#pragma once

#include "nexar_torch/call.h"

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <nexar/nexar.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace nexar_torch {

// The requests of one operation and what must stay alive until they complete.
struct InFlight {
  std::vector<nexar_request_t> requests;
  std::vector<at::Tensor> keep_alive;  // buffers nexar reads or writes besides the Work's outputs
  Call call;  // a collective's call; holds the arrays nexar reads while it runs (counts, pointers)
  nexar_result_t start_rc = NEXAR_SUCCESS;  // a failed start: reported once the others end
  std::string start_error;
  bool want_source = false;  // a receive from any source: its one request's sender goes to source
  int source = -1;
  // Waits for every request (freeing them all); the first failure's text, or "".
  std::string wait_all(const char *what);
};

// One thread per process group completing queued jobs in order.
class Completer {
 public:
  // A completer known to stop_all().
  static std::shared_ptr<Completer> make();
  // Stops every live completer (their jobs run to the end). Called at interpreter exit,
  // before finalization: a job dropping the last reference to a tensor takes the GIL, and a
  // thread that asks for it during finalization is ended mid-destructor (std::terminate).
  static void stop_all();
  Completer() = default;
  ~Completer();
  Completer(const Completer &) = delete;
  Completer &operator=(const Completer &) = delete;
  // Runs job on the thread; false once stopped (the caller runs it itself).
  bool post(std::function<void()> job);
  // Runs every job posted so far and ends the thread.
  void stop();

 private:
  void run();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopped_ = false;
  std::thread thread_;
};

class NexarWork final : public c10d::Work {
 public:
  NexarWork(int rank, c10d::OpType type, const char *what, nexar_comm_t comm, std::weak_ptr<Completer> completer);
  ~NexarWork() override;

  // Starts flight.call's non-blocking form (by DeferredStart, under its lock).
  void start_async();
  // Records a failed start with nexar's message (reported when the Work completes).
  void record_start(nexar_result_t rc);

  InFlight flight;
  std::vector<at::Tensor> outputs;  // result() and the Future's value; kept alive like flight.keep_alive
  std::function<void()> on_success;  // copy-out after the requests succeeded
  int source_rank = -1;

  bool isCompleted() override;
  bool wait(std::chrono::milliseconds timeout) override;
  std::vector<at::Tensor> result() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;
  int sourceRank() const override;
  void synchronize() override {}

  // Completes the Work (once; later callers wait for the first).
  void complete();
  // True once the group's Completer thread was asked to complete it (a Future, a dropped
  // Work): that thread runs it, so nobody has left it unattended.
  bool handed_off();

 private:
  void finish_with(const std::string &error);
  // Has the group's Completer thread complete the Work (once), or completes it now when
  // the group is gone.
  void complete_in_background();
  const char *what_;
  nexar_comm_t comm_;  // where nexar records the call's error text
  std::weak_ptr<Completer> completer_;
  std::mutex complete_mu_;  // held while completing; try-locked by isCompleted
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  bool future_done_ = false;  // under mutex_ (the base class's)
  bool in_background_ = false;  // under mutex_: complete_in_background was called
};

}  // namespace nexar_torch
