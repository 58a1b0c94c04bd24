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
//     end, and the starter thread once it has waited a whole tick (kTick, 1 ms), so an
//     async operation nobody looks at still starts (a peer may be waiting for it).
// The tick stays 1 ms while blocking calls flow (each one's wait takes it at once, so the
// tick starts nothing): a tick grown to 16 ms in that case measured the np 2 4 B torch
// all_reduce 3-4x slower on a loaded machine (28-46 us against 6-13 us, the rank's thread
// waiting 16 us per call for its CPU against 1), the tick's wake-ups cutting short the
// slices of other processes on the rank's core; the 1 ms tick costs each rank about
// 13-25 us of CPU per 1 MiB all_reduce at np 4 (docs/benchmarks.md).
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

  // How long a pending collective waits for its first need before the starter thread starts it.
  static constexpr std::chrono::microseconds kTick{1000};

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
  bool thread_started_ = false;
  bool sleeping_ = false;  // the starter waits without a timeout: defer() must wake it
};

}  // namespace nexar_torch
