// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "trace/flight_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "core/params.h"
#include "trace/comm_recorder.h"
#include "trace/json_out.h"
#include "trace/registry.h"

namespace nexar::trace {
namespace {

std::mutex g_mu;  // the list below; a snapshot holds it, so no recorder dies under it
std::vector<CommRecorder*>& recorders() {
  static auto* v = new std::vector<CommRecorder*>();  // outlives static destructors
  return *v;
}
std::atomic<int> g_rank{0}, g_world_size{1};

}  // namespace

void register_recorder(CommRecorder* r) {
  std::lock_guard<std::mutex> lock(g_mu);
  recorders().push_back(r);
}

void unregister_recorder(CommRecorder* r) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto& v = recorders();
  v.erase(std::remove(v.begin(), v.end(), r), v.end());
}

void for_each_recorder(const std::function<void(const CommRecorder&)>& fn) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (const CommRecorder* r : recorders()) fn(*r);
}

void set_process(int rank, int world_size) {
  g_rank.store(rank);
  g_world_size.store(world_size);
}

ProcessIdentity process_identity() { return {g_rank.load(), g_world_size.load()}; }

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

RecorderConfig recorder_config() {
  RecorderConfig c;
  const int64_t n = param::NEXAR_TRACE_BUFFER.get();
  c.entries = n > 0 ? static_cast<uint64_t>(std::min<int64_t>(n, 1 << 24)) : 0;
  c.trace_dir = param::NEXAR_TRACE.get();
  return c;
}

std::string snapshot_json() {
  const ProcessIdentity id = process_identity();
  JsonOut out;
  out.begin_object();
  out.field("rank", id.rank);
  out.field("world_size", id.world_size);
  out.field("host", host_name());
  out.field("pid", static_cast<int>(getpid()));
  std::lock_guard<std::mutex> lock(g_mu);
  // The newest call not yet ended, over every communicator.
  std::vector<std::pair<int64_t, std::string>> active;
  for (const CommRecorder* r : recorders()) r->describe_active(&active);
  std::string current = "outside nexar";
  if (!active.empty())
    current = std::max_element(active.begin(), active.end(), [](auto& a, auto& b) { return a.first < b.first; })->second;
  out.field("current", current);
  out.key("comms");
  out.begin_array();
  for (const CommRecorder* r : recorders()) r->snapshot(out);
  out.end_array();
  out.end_object();
  return std::move(out.text());
}

}  // namespace nexar::trace
