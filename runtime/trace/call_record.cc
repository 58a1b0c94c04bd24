#include "trace/call_record.h"

namespace nexar::trace {

const char* call_state_name(CallState s) {
  switch (s) {
    case CallState::kQueued: return "queued";
    case CallState::kRunning: return "running";
    case CallState::kDone: return "done";
    case CallState::kFailed: return "failed";
  }
  return "unknown";
}

uint64_t CallRecord::begin(const CallFacts& f, uint64_t pos) {
  constexpr auto r = std::memory_order_relaxed;
  const uint64_t v = 2 * pos + 1;
  version.store(v, r);  // odd: a reader that sees it skips the entry
  std::atomic_thread_fence(std::memory_order_release);
  seq.store(f.seq, r);
  kind.store(f.kind, r);
  algo.store(f.algo, r);
  count.store(f.count, r);
  bytes.store(f.bytes, r);
  t_queued_ns.store(f.t_queued_ns, r);
  t_start_ns.store(f.t_start_ns, r);
  t_end_ns.store(0, r);
  dtype.store(f.dtype, r);
  op.store(f.op, r);
  root.store(f.root, r);
  peer.store(f.peer, r);
  tag.store(f.tag, r);
  waiting_on.store(-1, r);
  state.store(f.state, r);
  timed_end.store(f.bytes >= kTimedEndBytes, r);
  version.store(v + 1, std::memory_order_release);
  return v + 1;
}

bool CallRecord::load(CallFacts* out, uint64_t pos) const {
  constexpr auto r = std::memory_order_relaxed;
  const uint64_t v = version.load(std::memory_order_acquire);
  if (v != 2 * pos + 2) return false;
  out->state = state.load(std::memory_order_acquire);  // before t_end_ns, stored before it
  out->seq = seq.load(r);
  out->kind = kind.load(r);
  out->algo = algo.load(r);
  out->count = count.load(r);
  out->bytes = bytes.load(r);
  out->t_queued_ns = t_queued_ns.load(r);
  out->t_start_ns = t_start_ns.load(r);
  out->t_end_ns = t_end_ns.load(r);
  out->dtype = dtype.load(r);
  out->op = op.load(r);
  out->root = root.load(r);
  out->peer = peer.load(r);
  out->tag = tag.load(r);
  out->waiting_on = waiting_on.load(r);
  std::atomic_thread_fence(std::memory_order_acquire);
  return version.load(r) == v;
}

}  // namespace nexar::trace
