// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "trace/call_record.h"

#include "core/dtype.h"

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

const char* call_kind_name(CallKind k) {
  switch (k) {
    case CallKind::kNone: return "none";
    case CallKind::kAllreduce: return "allreduce";
    case CallKind::kBroadcast: return "broadcast";
    case CallKind::kReduce: return "reduce";
    case CallKind::kAllgather: return "allgather";
    case CallKind::kReduceScatter: return "reduce_scatter";
    case CallKind::kGather: return "gather";
    case CallKind::kScatter: return "scatter";
    case CallKind::kAlltoall: return "alltoall";
    case CallKind::kScan: return "scan";
    case CallKind::kExscan: return "exscan";
    case CallKind::kBarrier: return "barrier";
    case CallKind::kAllreduceBucketed: return "allreduce_bucketed";
    case CallKind::kAllgatherv: return "allgatherv";
    case CallKind::kGatherv: return "gatherv";
    case CallKind::kScatterv: return "scatterv";
    case CallKind::kAlltoallv: return "alltoallv";
    case CallKind::kReduceScatterV: return "reduce_scatter_v";
    case CallKind::kSend: return "send";
    case CallKind::kRecv: return "recv";
    case CallKind::kSendv: return "sendv";
    case CallKind::kRecvv: return "recvv";
    case CallKind::kProbe: return "probe";
    case CallKind::kAgree: return "agree";
    case CallKind::kShrink: return "shrink";
    case CallKind::kRevoke: return "revoke";
    case CallKind::kRebuild: return "rebuild";
  }
  return "invalid";
}

void decode_call(const CallDesc& d, int comm_size, CallFacts* f) {
  const CallKind k = call_kind_of(d.word);
  f->kind = call_kind_name(k);
  f->count = d.count;
  f->dtype = static_cast<int>((d.word >> 48) & 0xff) - 1;
  f->op = static_cast<int>((d.word >> 40) & 0xff) - 1;
  const auto who = static_cast<int32_t>(static_cast<uint32_t>(d.word));
  const bool p2p = k >= CallKind::kSend && k <= CallKind::kProbe;
  f->root = p2p ? -1 : who;
  f->peer = p2p ? who : -1;
  f->tag = d.tag;
  const uint64_t es = f->dtype >= 0 ? dtype_size(static_cast<nexar_dtype_t>(f->dtype)) : 0;
  f->bytes = d.count * es * ((d.word & kPerRankBytesBit) ? static_cast<uint64_t>(comm_size) : 1);
}

bool CallRecord::load(CallFacts* out, uint64_t pos, int comm_size) const {
  constexpr auto r = std::memory_order_relaxed;
  const uint64_t v = version.load(std::memory_order_acquire);
  if (v != 2 * pos + 2) return false;
  out->state = state.load(std::memory_order_acquire);  // before t_end_ns, stored before it
  out->seq = seq.load(r);
  CallDesc d;
  d.word = word.load(r);
  d.count = count.load(r);
  d.tag = tag.load(r);
  out->algo = algo.load(r);
  out->t_queued_ns = t_queued_ns.load(r);
  out->t_start_ns = t_start_ns.load(r);
  out->t_end_ns = t_end_ns.load(r);
  out->waiting_on = waiting_on.load(r);
#if defined(__SANITIZE_THREAD__)
  if (version.fetch_add(0, std::memory_order_acq_rel) != v) return false;  // as in begin(): no fence
#else
  std::atomic_thread_fence(std::memory_order_acquire);
  if (version.load(r) != v) return false;
#endif
  decode_call(d, comm_size, out);
  return true;
}

}  // namespace nexar::trace
