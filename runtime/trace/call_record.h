// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One call in a flight recorder: a fixed-size entry of a ring, written by the thread that
// runs the call with relaxed stores (no lock, no allocation, no strings: the call's packed
// descriptor, trace/call_kind.h) and read at any time by a snapshot, which decodes it.
// `version` says which call of the ring the entry holds: 2 * pos + 2 once the call at ring
// position pos started in it, odd while it is being (re)started; a reader drops a copy
// when the version is not the one it expects or changed while it copied.
#pragma once

#include <atomic>
#include <cstdint>

#include "trace/call_kind.h"

namespace nexar::trace {

enum class CallState : uint8_t { kQueued, kRunning, kDone, kFailed };
const char* call_state_name(CallState s);

// What a snapshot or a trace sees of a call (a CallRecord decoded).
struct CallFacts {
  uint64_t seq = 0;
  const char* kind = "";  // a static name: "allreduce", "send", ...
  const char* algo = "";  // a static name, "" until chosen
  uint64_t count = 0;
  uint64_t bytes = 0;
  int dtype = -1, op = -1;  // nexar_dtype_t / nexar_op_t, -1 where the kind has none
  int root = -1, peer = -1, tag = -1;
  int waiting_on = -1;  // comm rank this call blocks on, -1 when none (or any source: -2)
  CallState state = CallState::kQueued;
  int64_t t_queued_ns = 0, t_start_ns = 0, t_end_ns = 0;  // epoch; 0: not yet
};

// d's kind, dtype, op, root or peer, count, tag and bytes (comm_size: the communicator's
// size, for the gather-like kinds' bytes) into f.
void decode_call(const CallDesc& d, int comm_size, CallFacts* f);

struct CallRecord {
  mutable std::atomic<uint64_t> version{0};  // mutable: a ThreadSanitizer build's load() orders by an RMW
  std::atomic<uint64_t> seq{0};
  std::atomic<uint64_t> word{0};  // CallDesc::word
  std::atomic<uint64_t> count{0};
  std::atomic<const char*> algo{""};
  std::atomic<int64_t> t_queued_ns{0}, t_start_ns{0}, t_end_ns{0};
  std::atomic<int32_t> tag{-1}, waiting_on{-1};
  std::atomic<CallState> state{CallState::kDone};
  // The call blocked (a wait went past its spin) or moves enough bytes to last: its end
  // time is read from the clock. Otherwise it ended within the coarse clock's resolution
  // of its start, which then stands for its end (one clock read per call, not two).
  std::atomic<bool> timed_end{false};

  // Starts call d, its sequence number `number`, in state st at ring position pos in this
  // entry (the writer owns it: no other writer touches it now). Returns its version, which
  // later updates may check.
  uint64_t begin(const CallDesc& d, uint64_t number, CallState st, int64_t t_queued, int64_t t_start, uint64_t pos) {
    constexpr auto r = std::memory_order_relaxed;
    const uint64_t v = 2 * pos + 1;
#if defined(__SANITIZE_THREAD__)
    // GCC refuses fences under ThreadSanitizer: a read-modify-write orders the same way.
    version.exchange(v, std::memory_order_acq_rel);  // odd: a reader that sees it skips the entry
#else
    version.store(v, r);  // odd: a reader that sees it skips the entry
    std::atomic_thread_fence(std::memory_order_release);
#endif
    seq.store(number, r);
    word.store(d.word, r);
    count.store(d.count, r);
    algo.store("", r);
    t_queued_ns.store(t_queued, r);
    t_start_ns.store(t_start, r);
    t_end_ns.store(0, r);
    tag.store(d.tag, r);
    waiting_on.store(-1, r);
    state.store(st, r);
    timed_end.store((d.word & kTimedEndBit) != 0, r);
    version.store(v + 1, std::memory_order_release);
    return v + 1;
  }
  // Copies and decodes the entry if it holds the call at ring position pos (and was not
  // reused meanwhile).
  bool load(CallFacts* out, uint64_t pos, int comm_size) const;
  // The ring position of the call the entry holds (or last held).
  uint64_t pos() const { return (version.load(std::memory_order_relaxed) - 1) / 2; }
};

}  // namespace nexar::trace
