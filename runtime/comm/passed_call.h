// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Per collective kind, the arguments of the last call of a fixed count on a communicator
// that passed validate_collective_args, and the span of memory its buffers cover on this
// rank. The check reads nothing of such a call but its kind, buffers, count, dtype, op and
// root (and the communicator's rank and size, fixed), nor does the span, so the same
// arguments again pass again and span as much: a loop calling with the same buffers checks
// them once (api/call_checks.h), a barrier between its calls included. Used only by the
// thread holding the communicator's collective queue (as CallWordsCache): no lock.
#pragma once

#include <array>
#include <cstdint>

#include "collectives/collective.h"
#include "core/raw_enum.h"

namespace nexar::comm {

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
  // [lo, hi): its buffers' span (device/staged_collective.h's buffer_span).
  void remember(const coll::CollArgs& a, uintptr_t lo, uintptr_t hi) {
    last_[static_cast<size_t>(a.kind)] =
        Key{true, a.sendbuf, a.recvbuf, a.count, raw_value(a.dtype), raw_value(a.op), a.root, lo, hi};
  }
  uintptr_t span_lo(coll::CollKind kind) const { return last_[static_cast<size_t>(kind)].lo; }
  uintptr_t span_hi(coll::CollKind kind) const { return last_[static_cast<size_t>(kind)].hi; }

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
};

}  // namespace nexar::comm
