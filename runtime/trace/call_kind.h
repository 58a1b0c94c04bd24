// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a flight-recorder hook stores of a call: a packed descriptor of a few words (kind,
// dtype, op, root or peer, count, tag), no strings; a snapshot decodes it to names.
#pragma once

#include <cstdint>

namespace nexar::trace {

// The kinds of call a recorder keeps. The collectives come first, in the order of
// coll::CollKind (comm/coll_trace.cc maps one onto the other and checks it).
enum class CallKind : uint8_t {
  kNone = 0,
  kAllreduce,
  kBroadcast,
  kReduce,
  kAllgather,
  kReduceScatter,
  kGather,
  kScatter,
  kAlltoall,
  kScan,
  kExscan,
  kBarrier,
  kAllreduceBucketed,
  kAllgatherv,
  kGatherv,
  kScatterv,
  kAlltoallv,
  kReduceScatterV,
  kSend,
  kRecv,
  kSendv,
  kRecvv,
  kProbe,
  // fault tolerance (docs/fault-tolerance.md)
  kAgree,
  kShrink,
  kRevoke,
  kRebuild,
};
constexpr int kCallKindCount = static_cast<int>(CallKind::kRebuild) + 1;
// "allreduce", "send", "agree", ... ("invalid" outside the enum).
const char* call_kind_name(CallKind k);

// A call as its hook describes it. word's bits:
//   63..56 kind, 55..48 dtype + 1 (0: none), 47..40 op + 1 (0: none),
//   33 the call moves at least kTimedEndBytes (its end time is read from the clock),
//   32 its bytes are count * dtype size * communicator size (gather-like kinds),
//   31..0 root or peer (int32, -1: none; send/recv/ANY_SOURCE: the peer).
struct CallDesc {
  uint64_t word = 0;
  uint64_t count = 0;
  int32_t tag = -1;
};

// Calls of at least this many bytes always read the clock at their end.
constexpr uint64_t kTimedEndBytes = 65536;

constexpr uint64_t kPerRankBytesBit = uint64_t{1} << 32;
constexpr uint64_t kTimedEndBit = uint64_t{1} << 33;

// dtype / op: the nexar_dtype_t / nexar_op_t value, -1 where the kind has none.
constexpr uint64_t pack_call(CallKind k, int dtype, int op, int root_or_peer) {
  return uint64_t{static_cast<uint8_t>(k)} << 56 | uint64_t{static_cast<uint8_t>(dtype + 1)} << 48 |
         uint64_t{static_cast<uint8_t>(op + 1)} << 40 | static_cast<uint32_t>(root_or_peer);
}
constexpr CallKind call_kind_of(uint64_t word) { return static_cast<CallKind>(word >> 56); }

}  // namespace nexar::trace
