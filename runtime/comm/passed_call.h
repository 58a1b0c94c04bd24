// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Per collective kind, the arguments of the last call of a fixed count on a communicator
// that passed validate_collective_args, and the span of memory its buffers cover on this
// rank. The check reads nothing of such a call but its kind, buffers, count, dtype, op and
// root (and the communicator's rank and size, fixed), nor does the span, so the same
// arguments again pass again and span as much: a loop calling with the same buffers checks
// them once (api/call_checks.h), a barrier between its calls included. Used only by the
// thread holding the communicator's collective queue (as CallWordsCache): no lock.
// With the arguments it keeps what the call runs (PassedRun), so a loop's same call is
// neither described nor chosen for again.
#pragma once

#include <array>
#include <cstdint>

#include "collectives/choice_cache.h"
#include "collectives/collective.h"
#include "comm/call_words.h"
#include "core/raw_enum.h"

namespace nexar::comm {

// What a remembered call runs: its call words and the algorithm chosen for it (algo
// nullptr until comm::run_passed_call chose). The choice reads, besides the arguments and
// the communicator's size, transport and cores (fixed), the parameters' generation and
// the communicator's slot area, so it holds while those are the ones kept here.
struct PassedRun {
  CallWords words;
  coll::Choice choice;
  uint64_t generation = 0;
  const void* slots = nullptr;
};

class PassedCallCache {
 public:
  // Whether a has the arguments of the last call of its kind remembered (dtype and op
  // compared as ints: a call not yet checked may carry any value).
  bool same(const coll::CollArgs& a) const {
    const Key& k = last_[static_cast<size_t>(a.kind)];
    return k.valid && a.sendbuf == k.sendbuf && a.recvbuf == k.recvbuf && a.count == k.count &&
           raw_value(a.dtype) == k.dtype && raw_value(a.op) == k.op && a.root == k.root;
  }
  // a, of a kind with a fixed count, passed validate_collective_args on this communicator;
  // [lo, hi): its buffers' span (device/staged_collective.h's buffer_span); words: its
  // call words (comm/call_words.h), with no algorithm chosen yet.
  void remember(const coll::CollArgs& a, uintptr_t lo, uintptr_t hi, const CallWords& words) {
    last_[static_cast<size_t>(a.kind)] =
        Key{true, a.sendbuf, a.recvbuf, a.count, raw_value(a.dtype), raw_value(a.op), a.root, lo, hi};
    runs_[static_cast<size_t>(a.kind)] = PassedRun{words};
  }
  uintptr_t span_lo(coll::CollKind kind) const { return last_[static_cast<size_t>(kind)].lo; }
  uintptr_t span_hi(coll::CollKind kind) const { return last_[static_cast<size_t>(kind)].hi; }
  // What the remembered call of kind runs.
  PassedRun& run(coll::CollKind kind) { return runs_[static_cast<size_t>(kind)]; }

 private:
  struct Key {
    bool valid = false;
    const void* sendbuf = nullptr;
    const void* recvbuf = nullptr;
    size_t count = 0;
    int dtype = 0, op = 0, root = 0;
    uintptr_t lo = 0, hi = 0;
  };
  std::array<Key, coll::kCollKindCount> last_;
  std::array<PassedRun, coll::kCollKindCount> runs_;  // apart: the compare reads only last_
};

}  // namespace nexar::comm
