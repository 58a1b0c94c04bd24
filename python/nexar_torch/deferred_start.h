// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The process's one collective whose start waits until something needs it.
//
// torch calls the backend's collective and, for a blocking torch call (the common use),
// wait() on the returned Work at once; the backend cannot tell the two uses apart. Started
// as nexar's non-blocking call, every collective would go to the communicator's worker
// thread and back: two thread switches per call, most of a small collective's time on a
// loaded machine. So a collective is first only recorded here (at most one per process),
// and the first need decides how it runs:
//   - wait() (and the completer thread behind getFuture) takes it and runs nexar's blocking
//     call on its own thread: on an idle communicator that runs inline, with no hand-off;
//   - anything else starts it as nexar's non-blocking call: the next operation on any nexar
//     group of this process (so every rank still starts its collectives in issue order and
//     none waits on an operation this process has not started), isCompleted(), the group's
//     end, and the starter thread once it has waited a whole tick, so an async operation
//     nobody looks at still starts (a peer may be waiting for it).
// The starter's tick follows what it had to do lately. While every collective is taken by
// a wait() or a Future (blocking calls, DDP) the starter starts nothing and looks every
// kQuietTick (10 ms): a 1 ms tick there woke each rank's starter 2-12 times per DDP step,
// 50-165 us of CPU per step on the rank's core (docs/benchmarks.md). Once it has started a
// collective (the program leaves async work unattended), it looks every kTick (1 ms) until
// kAsyncSpan passes without that, so such work starts within 1-2 ms; a collective it finds
// pending gets a kTick look next, so the first unattended collective of a quiet process
// starts within kQuietTick + kTick. One handed to the completer thread (a Future) is that
// thread's to run: the starter gives it a kQuietTick look, and starting it then (the thread
// is busy with an earlier job) does not count as unattended work.
// Every start happens under one lock, so a Work found not pending here is fully started.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace nexar_torch {

class NexarWork;

class DeferredStart {
 public:
  // The process's one (never destroyed: Works may outlive static destruction order).
  static DeferredStart &get();

  // Starts the pending collective, if any, and makes work the pending one.
  void defer(const c10::intrusive_ptr<NexarWork> &work);
  // Starts the pending collective, if any (before any other operation of the backend).
  void flush();
  // Starts work if it is still pending.
  void start(NexarWork *work);
  // True when work was pending: it no longer is, and the caller runs it to completion.
  bool take(NexarWork *work);
  // Whether the starter looks every kTick now (it started unattended work within kAsyncSpan).
  bool short_ticks();

  // The starter's look while it has lately started collectives, and otherwise.
  static constexpr std::chrono::microseconds kTick{1000};
  static constexpr std::chrono::microseconds kQuietTick{10000};
  // How long the starter keeps the short tick after it last started a collective.
  static constexpr std::chrono::milliseconds kAsyncSpan{200};

 private:
  DeferredStart() = default;
  // Starts pending_ (non-blocking); returns the reference to drop once unlocked.
  c10::intrusive_ptr<NexarWork> start_locked();
  // The starter thread: ticks while collectives are being deferred, sleeps when none are.
  void run();

  std::mutex mu_;
  std::condition_variable cv_;
  c10::intrusive_ptr<NexarWork> pending_;
  uint64_t deferrals_ = 0;  // counts defer() calls: a tick that sees no change started nothing newer
  std::chrono::steady_clock::time_point short_ticks_until_{};  // kTick until then, kQuietTick after
  bool thread_started_ = false;
  bool sleeping_ = false;  // the starter waits without a timeout: defer() must wake it
};

}  // namespace nexar_torch
