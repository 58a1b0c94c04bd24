// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The blocking calls of one thread on a communicator of one rank, remembered for that
// thread alone, so that a loop's same call on it runs with no claim of the collective
// queue (api/owned_one_rank.h): the first thread whose call passed the one-rank route's
// checks under the queue's claim owns them for the communicator's life, and only the owner
// reads or writes what is remembered here (the owner's id is the one atomic; other threads
// take the claimed route). Per kind, a call's arguments and buffers' span (PassedCallCache,
// as the claimed route remembers them) and what it runs (OwnedRun).
//
// The owner's id is pthread_self(): a thread that ends may leave it to a later thread,
// which then reads what its predecessor remembered; that is the communicator's own
// arguments' checks, true on any thread, and glibc hands the id (the thread's descriptor)
// on through its own lock.
#pragma once

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "comm/passed_call.h"

namespace nexar::comm {

// What the owner's remembered call of a kind runs.
struct OwnedRun {
  const coll::AlgoDesc* algo = nullptr;  // one_rank_algo's answer ...
  uint64_t generation = 0;               // ... under this parameters' generation
  size_t plain_bytes = 0;                // one_rank_plain_bytes of the call
  bool in_heap = false;                  // device::host_while_heap_reaches of its span
};

class OwnedCalls {
 public:
  // Whether the calling thread owns these calls.
  bool mine() const { return owner_.load(std::memory_order_relaxed) == self(); }
  // Whether the calling thread owns these calls, making it the owner when nobody is.
  bool own() {
    uintptr_t none = 0;
    return owner_.compare_exchange_strong(none, self(), std::memory_order_relaxed) || none == self();
  }
  // The owner's calls and what each runs (only the owner calls them).
  PassedCallCache& calls() { return calls_; }
  OwnedRun& run(coll::CollKind kind) { return runs_[static_cast<size_t>(kind)]; }

 private:
  static uintptr_t self() { return static_cast<uintptr_t>(pthread_self()); }
  std::atomic<uintptr_t> owner_{0};
  PassedCallCache calls_;
  std::array<OwnedRun, coll::kCollKindCount> runs_;
};

}  // namespace nexar::comm
