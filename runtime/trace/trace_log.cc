// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "trace/trace_log.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "core/dtype.h"
#include "core/log.h"
#include "trace/json_out.h"
#include "trace/comm_recorder.h"
#include "trace/registry.h"
#include "trace/trace_clock.h"

namespace nexar::trace {
namespace {

struct Log {
  std::mutex mu;
  std::vector<TraceEvent> events;
  uint64_t dropped = 0;
  bool exit_hook = false;
};
Log& log() {
  static auto* l = new Log();  // outlives static destructors (written from atexit)
  return *l;
}

void write_at_exit() { (void)write_trace_file(); }

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// Track names and numbers: per communicator, its collectives (waits nest in them) and as
// many point-to-point lanes as calls overlapped (a lane holds calls that do not overlap,
// so every track's slices nest).
struct Tracks {
  std::map<std::pair<uint32_t, int>, int> tid;  // (ctx, lane: 0 collectives, 1.. p2p)
  int of(uint32_t ctx, int lane) {
    auto it = tid.find({ctx, lane});
    if (it != tid.end()) return it->second;
    const int t = static_cast<int>(tid.size()) + 1;
    tid[{ctx, lane}] = t;
    return t;
  }
};

void write_args(JsonOut& out, const TraceEvent& ev) {
  const CallFacts& f = ev.facts;
  out.key("args");
  out.begin_object();
  if (ev.track == TraceTrack::kWait) {
    out.field("collective_seq", f.seq);
    out.field("peer", f.peer);
  } else {
    out.field("seq", f.seq);
    if (f.algo[0]) out.field("algorithm", f.algo);
    out.field("bytes", f.bytes);
    out.field("count", f.count);
    if (f.dtype >= 0) out.field("dtype", dtype_name(static_cast<nexar_dtype_t>(f.dtype)));
    if (f.op >= 0) out.field("op", op_name(static_cast<nexar_op_t>(f.op)));
    if (f.root >= 0) out.field("root", f.root);
    if (f.peer != -1) out.field("peer", f.peer);
    if (f.tag != -1) out.field("tag", f.tag);
    if (f.t_queued_ns != 0) out.field("queued_us", us(f.t_start_ns - f.t_queued_ns));
    out.field("state", call_state_name(f.state));
    if (!ev.error.empty()) out.field("error", ev.error);
  }
  out.end_object();
}

}  // namespace

void trace_emit(TraceEvent ev) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mu);
  if (!l.exit_hook) {
    l.exit_hook = true;
    std::atexit(write_at_exit);  // a rank that exits without destroying its world
  }
  if (l.events.size() >= kMaxTraceEvents) {
    ++l.dropped;
    return;
  }
  l.events.push_back(std::move(ev));
}

std::string trace_json() {
  Log& l = log();
  std::vector<TraceEvent> evs;
  uint64_t dropped;
  {
    std::lock_guard<std::mutex> lock(l.mu);
    evs = l.events;
    dropped = l.dropped;
  }
  // Calls still running (a rank ended while it hung) end at the time of writing.
  const int64_t now = epoch_ns(true);
  for_each_recorder([&](const CommRecorder& r) { r.running_events(now, &evs); });
  std::stable_sort(evs.begin(), evs.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.facts.t_start_ns < b.facts.t_start_ns; });
  const ProcessIdentity id = process_identity();
  const std::string host = host_name();
  Tracks tracks;
  std::map<uint32_t, std::vector<int64_t>> lane_end;  // per ctx: when each p2p lane frees
  JsonOut out;
  out.begin_object();
  out.key("traceEvents");
  out.begin_array();
  out.begin_object();
  out.field("ph", "M");
  out.field("pid", id.rank);
  out.field("name", "process_name");
  out.key("args");
  out.begin_object();
  out.field("name", strprintf("rank %d (%s)", id.rank, host.c_str()));
  out.end_object();
  out.end_object();
  for (const TraceEvent& ev : evs) {
    const CallFacts& f = ev.facts;
    int lane = 0;
    if (ev.track == TraceTrack::kP2p) {
      auto& ends = lane_end[ev.ctx];
      size_t i = 0;
      while (i < ends.size() && ends[i] > f.t_start_ns) ++i;
      if (i == ends.size()) ends.push_back(0);
      ends[i] = f.t_end_ns;
      lane = static_cast<int>(i) + 1;
    }
    out.begin_object();
    out.field("ph", "X");
    out.field("pid", id.rank);
    out.field("tid", tracks.of(ev.ctx, lane));
    out.field("name", ev.track == TraceTrack::kWait ? "wait" : f.kind);
    out.field("cat", ev.track == TraceTrack::kCollective ? "collective" : ev.track == TraceTrack::kP2p ? "p2p" : "wait");
    out.field("ts", us(f.t_start_ns));
    out.field("dur", us(std::max<int64_t>(f.t_end_ns - f.t_start_ns, 0)));
    write_args(out, ev);
    out.end_object();
  }
  for (const auto& [key, tid] : tracks.tid) {
    out.begin_object();
    out.field("ph", "M");
    out.field("pid", id.rank);
    out.field("tid", tid);
    out.field("name", "thread_name");
    out.key("args");
    out.begin_object();
    out.field("name", key.second == 0 ? strprintf("comm 0x%x collectives", key.first)
                                      : strprintf("comm 0x%x p2p %d", key.first, key.second));
    out.end_object();
    out.end_object();
  }
  out.end_array();
  out.field("displayTimeUnit", "ns");
  out.key("otherData");
  out.begin_object();
  out.field("rank", id.rank);
  out.field("world_size", id.world_size);
  out.field("host", host);
  out.field("dropped_events", dropped);
  out.end_object();
  out.end_object();
  return std::move(out.text());
}

Status write_trace_file() {
  const std::string dir = recorder_config().trace_dir;
  if (dir.empty()) return Status::Ok();
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return Status(NEXAR_ERR_INTERNAL, strprintf("NEXAR_TRACE: cannot create %s: %s", dir.c_str(), std::strerror(errno)));
  const int rank = process_identity().rank;
  const std::string path = strprintf("%s/nexar-trace-rank%d.json", dir.c_str(), rank);
  const std::string tmp = path + ".tmp";
  const std::string text = trace_json();
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return Status(NEXAR_ERR_INTERNAL, strprintf("NEXAR_TRACE: cannot write %s: %s", tmp.c_str(), std::strerror(errno)));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(NEXAR_ERR_INTERNAL, strprintf("NEXAR_TRACE: writing %s failed", path.c_str()));
  }
  NX_INFO(INIT, "trace written to %s", path.c_str());
  return Status::Ok();
}

}  // namespace nexar::trace
