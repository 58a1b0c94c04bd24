// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A communicator's flight recorder, always on: the last NEXAR_TRACE_BUFFER collectives and
// the last NEXAR_TRACE_BUFFER other calls (point to point; agree, shrink, revoke,
// rebuild), each in a ring of CallRecords.
//
// Collectives are recorded by the thread that runs them (the one holding the
// communicator's collective queue, so one writer at a time: a load and a store advance
// the ring, no read-modify-write, no lock, no allocation); a collective queued behind
// others waits in a short locked list until it runs. Other calls come from any thread and
// claim their entry with one fetch_add. A hook stores the call's packed descriptor
// (trace/call_kind.h) with relaxed stores to the call's own entry; names and strings are
// made only by a snapshot. NEXAR_TRACE_BUFFER=0 turns the recorder off: callers check
// on() before they describe a call, so nothing is built.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "trace/call_record.h"
#include "trace/trace_clock.h"

namespace nexar::trace {

class JsonOut;
struct TraceEvent;

// Where a point-to-point call's record is: its entry and the version it started with.
struct P2pMark {
  CallRecord* entry = nullptr;
  uint64_t version = 0;
  int peer = -1;  // comm rank, or NEXAR_ANY_SOURCE
};

class CommRecorder {
 public:
  // ctx: the communicator's context id; members: world ranks in comm rank order.
  CommRecorder(uint32_t ctx, std::vector<int> members, int rank);
  ~CommRecorder();
  CommRecorder(const CommRecorder&) = delete;
  CommRecorder& operator=(const CommRecorder&) = delete;

  uint32_t ctx() const { return ctx_; }
  // False when NEXAR_TRACE_BUFFER=0: every hook then does nothing.
  bool on() const { return n_ != 0; }
  // NEXAR_TRACE is set: every call is also written to the trace.
  bool tracing() const { return tracing_; }

  // --- collectives (the thread holding the collective queue)
  // Records a collective issued behind others; its id goes to begin_collective.
  uint64_t note_queued(const CallDesc& d);
  // Starts collective number seq as running (queued_id: its note_queued entry, 0 if
  // none); nullptr when the recorder is off.
  CallRecord* begin_collective(const CallDesc& d, uint64_t seq, uint64_t queued_id = 0) {
    if (!coll_) return nullptr;
    const int64_t tq = queued_id != 0 ? take_queued(queued_id) : 0;
    const uint64_t h = coll_head_.load(std::memory_order_relaxed);
    CallRecord* e = &coll_[coll_slot_];  // h % n_, without a division
    coll_slot_ = coll_slot_ + 1 == n_ ? 0 : coll_slot_ + 1;
    e->begin(d, seq, CallState::kRunning, tq, epoch_ns(precise_), h);
    coll_head_.store(h + 1, std::memory_order_release);
    return e;
  }
  // The algorithm chosen for e (a static name).
  static void set_algo(CallRecord* e, const char* name) {
    if (e) e->algo.store(name, std::memory_order_relaxed);
  }
  // e blocks on comm rank peer (-1: no longer blocks). Traced waits also take the time.
  void wait_begin(CallRecord* e, int peer, int64_t* t0) {
    if (!e) return;
    e->waiting_on.store(peer, std::memory_order_relaxed);
    e->timed_end.store(true, std::memory_order_relaxed);
    if (tracing_) *t0 = epoch_ns(true);
  }
  void wait_end(CallRecord* e, int peer, int64_t t0) {
    if (!e) return;
    e->waiting_on.store(-1, std::memory_order_relaxed);
    if (tracing_) emit_wait(e, peer, t0);
  }
  // Ends e with st (done, or failed with st's text).
  void end(CallRecord* e, const Status& st) {
    if (!e) return;
    const bool timed = precise_ || e->timed_end.load(std::memory_order_relaxed) || !st.ok();
    e->t_end_ns.store(timed ? epoch_ns(precise_) : e->t_start_ns.load(std::memory_order_relaxed),
                      std::memory_order_relaxed);
    if (!st.ok()) note_error(e, st);
    e->state.store(st.ok() ? CallState::kDone : CallState::kFailed, std::memory_order_release);
    if (tracing_) emit_call(e);
  }

  // --- point to point, agree, shrink, revoke, rebuild (any thread)
  // Numbered per kind here. peer: the comm rank the call waits on (p2p_wait_begin).
  P2pMark begin_p2p(const CallDesc& d, int peer = -1);
  // A call without data (agree, shrink, revoke, rebuild), ended by end_p2p.
  P2pMark begin_call(CallKind k) { return on() ? begin_p2p({pack_call(k, -1, -1, -1), 0, -1}) : P2pMark{}; }
  void p2p_wait_begin(const P2pMark& m, int peer) {
    if (m.entry && m.entry->version.load(std::memory_order_relaxed) == m.version)
      m.entry->waiting_on.store(peer, std::memory_order_relaxed);
  }
  void end_p2p(const P2pMark& m, const Status& st);

  // {"ctx":..,"rank":..,"size":..,"members":[..],"calls":[..]}
  void snapshot(JsonOut& out) const;
  // The calls running now, as trace events that end at now_ns (a trace written while a
  // call hangs shows it).
  void running_events(int64_t now_ns, std::vector<TraceEvent>* out) const;
  // The calls not yet ended (running or queued), oldest first, as "allreduce #7" texts.
  void describe_active(std::vector<std::pair<int64_t, std::string>>* out) const;

 private:
  int64_t take_queued(uint64_t id);
  void note_error(const CallRecord* e, const Status& st);
  void flush_on_first_failure() const;
  std::string error_of(const CallRecord* e, uint64_t version) const;
  void emit_call(const CallRecord* e) const;
  void emit_wait(const CallRecord* e, int peer, int64_t t0) const;
  void write_call(JsonOut& out, const CallFacts& f, const std::string& error) const;
  // The entries of a ring, oldest first (ring: coll_ or p2p_).
  void load_ring(const CallRecord* ring, uint64_t head, std::vector<std::pair<const CallRecord*, CallFacts>>* out) const;
  int size() const { return static_cast<int>(members_.size()); }

  struct RingFree {
    void operator()(CallRecord* p) const;
  };
  struct Queued {
    uint64_t id;
    CallDesc desc;
    int64_t t_queued_ns;
  };
  struct ErrorText {
    const CallRecord* entry;
    uint64_t version;
    std::string text;
  };

  const uint32_t ctx_;
  const std::vector<int> members_;
  const int rank_;
  const uint64_t n_;  // entries per ring; 0: off
  const bool precise_, tracing_;
  std::unique_ptr<CallRecord[], RingFree> coll_, p2p_;
  std::atomic<uint64_t> coll_head_{0}, p2p_head_{0};
  uint64_t coll_slot_ = 0;  // coll_head_ % n_ (only the collective writer touches it)
  std::atomic<uint64_t> numbers_[kCallKindCount] = {};  // per kind of the other calls
  mutable std::atomic<bool> flushed_{false};  // the trace file was written after a failure
  mutable std::mutex mu_;  // the queued list and the error texts
  std::deque<Queued> queued_;
  uint64_t next_queued_id_ = 1;
  std::deque<ErrorText> errors_;
};

}  // namespace nexar::trace
