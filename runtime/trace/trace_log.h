// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TRACE=DIR: every call this process makes, kept in memory as it ends and written at
// the world's destruction (and at exit) to DIR/nexar-trace-rank<R>.json, a Chrome/Perfetto
// trace (JSON traceEvents, complete "X" events; pid = rank, one track per communicator's
// collectives, lanes of point-to-point calls; waits nest inside their collective).
// tools/nexar-trace-merge.py joins the ranks' files into one timeline.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "trace/call_record.h"

namespace nexar::trace {

enum class TraceTrack : uint8_t { kCollective, kP2p, kWait };

struct TraceEvent {
  uint32_t ctx = 0;
  TraceTrack track = TraceTrack::kCollective;
  CallFacts facts;
  std::string error;
};

// Keeps ev (up to kMaxTraceEvents; later ones are counted as dropped).
void trace_emit(TraceEvent ev);
constexpr size_t kMaxTraceEvents = size_t{1} << 20;

// Writes the trace file when NEXAR_TRACE is set (else does nothing). Idempotent: a later
// call rewrites the file with every event so far.
Status write_trace_file();

// The trace as JSON text (what write_trace_file writes).
std::string trace_json();

}  // namespace nexar::trace
