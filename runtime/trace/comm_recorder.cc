// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "trace/comm_recorder.h"

#include <algorithm>
#include <cstdlib>

#include "core/dtype.h"
#include "trace/json_out.h"
#include "trace/registry.h"
#include "trace/trace_flush.h"
#include "trace/trace_log.h"

namespace nexar::trace {
namespace {

constexpr size_t kMaxErrors = 16;  // failed calls whose text a snapshot shows

// Zeroed memory: an entry with version 0 is unused. calloc leaves the pages of a large
// ring untouched (so unused entries cost no memory) and all-zero bits are a valid
// state of every field of a CallRecord (atomics of integers, pointers and a byte enum).
CallRecord* new_ring(uint64_t n) {
  if (n == 0) return nullptr;
  void* p = std::calloc(n, sizeof(CallRecord));
  if (!p) std::abort();
  return static_cast<CallRecord*>(p);
}

}  // namespace

void CommRecorder::RingFree::operator()(CallRecord* p) const { std::free(p); }

CommRecorder::CommRecorder(uint32_t ctx, std::vector<int> members, int rank)
    : ctx_(ctx),
      members_(std::move(members)),
      rank_(rank),
      n_(recorder_config().entries),
      precise_(!recorder_config().trace_dir.empty()),
      tracing_(n_ > 0 && precise_),
      coll_(new_ring(n_)),
      p2p_(new_ring(n_)) {
  if (n_ > 0) register_recorder(this);
  if (tracing_) install_trace_flush();
}

CommRecorder::~CommRecorder() {
  if (n_ > 0) unregister_recorder(this);
}

uint64_t CommRecorder::note_queued(const CallDesc& d) {
  if (!coll_) return 0;
  const int64_t t = epoch_ns(precise_);
  std::lock_guard<std::mutex> lock(mu_);
  queued_.push_back({next_queued_id_++, d, t});
  return queued_.back().id;
}

int64_t CommRecorder::take_queued(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = queued_.begin(); it != queued_.end(); ++it) {
    if (it->id != id) continue;
    const int64_t t = it->t_queued_ns;
    queued_.erase(it);
    return t;
  }
  return 0;
}

void CommRecorder::note_error(const CallRecord* e, const Status& st) {
  std::lock_guard<std::mutex> lock(mu_);
  errors_.push_back({e, e->version.load(std::memory_order_relaxed), st.to_string()});
  if (errors_.size() > kMaxErrors) errors_.pop_front();
}

void CommRecorder::flush_on_first_failure() const {
  // A failed call usually breaks the communicator, and the job may not end cleanly: the
  // trace so far is written now, once per communicator (later failures follow the first).
  if (!flushed_.exchange(true)) (void)write_trace_file();
}

std::string CommRecorder::error_of(const CallRecord* e, uint64_t version) const {
  for (const ErrorText& t : errors_)
    if (t.entry == e && t.version == version) return t.text;
  return "";
}

P2pMark CommRecorder::begin_p2p(const CallDesc& d, int peer) {
  if (!p2p_) return {};
  const uint64_t seq = numbers_[static_cast<int>(call_kind_of(d.word))].fetch_add(1, std::memory_order_relaxed);
  const int64_t t = epoch_ns(precise_);
  const uint64_t h = p2p_head_.fetch_add(1, std::memory_order_acq_rel);
  CallRecord* e = &p2p_[h % n_];
  return {e, e->begin(d, seq, CallState::kRunning, 0, t, h), peer};
}

void CommRecorder::end_p2p(const P2pMark& m, const Status& st) {
  CallRecord* e = m.entry;
  if (!e || e->version.load(std::memory_order_relaxed) != m.version) return;  // reused meanwhile
  e->waiting_on.store(-1, std::memory_order_relaxed);
  e->t_end_ns.store(epoch_ns(precise_), std::memory_order_relaxed);
  if (!st.ok()) note_error(e, st);
  e->state.store(st.ok() ? CallState::kDone : CallState::kFailed, std::memory_order_release);
  if (tracing_) {
    TraceEvent ev{ctx_, TraceTrack::kP2p, {}, st.ok() ? "" : st.to_string()};
    if (e->load(&ev.facts, e->pos(), size())) trace_emit(std::move(ev));
    if (!st.ok()) flush_on_first_failure();
  }
}

void CommRecorder::emit_call(const CallRecord* e) const {
  TraceEvent ev{ctx_, TraceTrack::kCollective, {}, {}};
  if (!e->load(&ev.facts, e->pos(), size())) return;
  if (ev.facts.state == CallState::kFailed) {
    std::lock_guard<std::mutex> lock(mu_);
    ev.error = error_of(e, e->version.load(std::memory_order_relaxed));
  }
  const bool failed = ev.facts.state == CallState::kFailed;
  trace_emit(std::move(ev));
  if (failed) flush_on_first_failure();
}

void CommRecorder::emit_wait(const CallRecord* e, int peer, int64_t t0) const {
  TraceEvent ev{ctx_, TraceTrack::kWait, {}, {}};
  ev.facts.seq = e->seq.load(std::memory_order_relaxed);
  ev.facts.kind = "wait";
  ev.facts.peer = peer;
  ev.facts.t_start_ns = t0;
  ev.facts.t_end_ns = epoch_ns(true);
  trace_emit(std::move(ev));
}

void CommRecorder::load_ring(const CallRecord* ring, uint64_t head,
                             std::vector<std::pair<const CallRecord*, CallFacts>>* out) const {
  if (!ring) return;
  const uint64_t first = head > n_ ? head - n_ : 0;
  for (uint64_t i = first; i < head; ++i) {
    const CallRecord* e = &ring[i % n_];
    CallFacts f;
    if (e->load(&f, i, size())) out->emplace_back(e, f);
  }
}

void CommRecorder::write_call(JsonOut& out, const CallFacts& f, const std::string& error) const {
  out.begin_object();
  out.field("seq", f.seq);
  out.field("kind", f.kind);
  out.field("count", f.count);
  out.field("dtype", f.dtype >= 0 ? dtype_name(static_cast<nexar_dtype_t>(f.dtype)) : "");
  out.field("op", f.op >= 0 ? op_name(static_cast<nexar_op_t>(f.op)) : "");
  out.field("root", f.root);
  out.field("peer", f.peer);
  out.field("tag", f.tag);
  out.field("bytes", f.bytes);
  out.field("algo", f.algo);
  const bool waiting = f.state == CallState::kRunning && f.waiting_on != -1;
  out.field("state", waiting ? "waiting" : call_state_name(f.state));
  out.key("waiting_on");
  out.begin_array();
  if (waiting && f.waiting_on >= 0) out.value(f.waiting_on);
  out.end_array();
  out.field("t_queued_us", f.t_queued_ns / 1000);
  out.field("t_start_us", f.t_start_ns / 1000);
  out.field("t_end_us", f.t_end_ns / 1000);
  out.field("error", error);
  out.end_object();
}

void CommRecorder::snapshot(JsonOut& out) const {
  std::vector<std::pair<const CallRecord*, CallFacts>> colls, p2p;
  load_ring(coll_.get(), coll_head_.load(std::memory_order_acquire), &colls);
  load_ring(p2p_.get(), p2p_head_.load(std::memory_order_acquire), &p2p);
  out.begin_object();
  out.field("ctx", static_cast<uint64_t>(ctx_));
  out.field("rank", rank_);
  out.field("size", static_cast<int>(members_.size()));
  out.key("members");
  out.value_ints(members_);
  out.key("calls");
  out.begin_array();
  std::lock_guard<std::mutex> lock(mu_);
  const auto write_all = [&](const std::vector<std::pair<const CallRecord*, CallFacts>>& v) {
    for (const auto& [e, f] : v)
      write_call(out, f, f.state == CallState::kFailed ? error_of(e, e->version.load(std::memory_order_relaxed)) : "");
  };
  write_all(colls);
  // Queued collectives run next, in issue order: their sequence numbers follow.
  uint64_t next_seq = colls.empty() ? 0 : colls.back().second.seq + 1;
  for (const Queued& q : queued_) {
    CallFacts qf;
    decode_call(q.desc, size(), &qf);
    qf.state = CallState::kQueued;
    qf.t_queued_ns = q.t_queued_ns;
    qf.seq = next_seq++;
    write_call(out, qf, "");
  }
  write_all(p2p);
  out.end_array();
  out.end_object();
}

void CommRecorder::running_events(int64_t now_ns, std::vector<TraceEvent>* out) const {
  std::vector<std::pair<const CallRecord*, CallFacts>> calls;
  load_ring(coll_.get(), coll_head_.load(std::memory_order_acquire), &calls);
  const size_t colls = calls.size();
  load_ring(p2p_.get(), p2p_head_.load(std::memory_order_acquire), &calls);
  for (size_t i = 0; i < calls.size(); ++i) {
    CallFacts f = calls[i].second;
    if (f.state != CallState::kRunning) continue;
    f.t_end_ns = std::max(now_ns, f.t_start_ns);
    out->push_back({ctx_, i < colls ? TraceTrack::kCollective : TraceTrack::kP2p, f, {}});
  }
}

void CommRecorder::describe_active(std::vector<std::pair<int64_t, std::string>>* out) const {
  std::vector<std::pair<const CallRecord*, CallFacts>> calls;
  load_ring(coll_.get(), coll_head_.load(std::memory_order_acquire), &calls);
  load_ring(p2p_.get(), p2p_head_.load(std::memory_order_acquire), &calls);
  for (const auto& [e, f] : calls) {
    if (f.state != CallState::kRunning) continue;
    std::string what = strprintf("%s #%llu on comm 0x%x", f.kind, static_cast<unsigned long long>(f.seq), ctx_);
    if (f.peer >= 0) what += strprintf(" (peer %d, tag %d)", f.peer, f.tag);
    if (f.waiting_on >= 0) what += strprintf(", waiting on rank %d", f.waiting_on);
    out->emplace_back(f.t_start_ns, std::move(what));
  }
}

}  // namespace nexar::trace
