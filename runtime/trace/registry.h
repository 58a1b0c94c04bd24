// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The live communicators' recorders of this process, for snapshots (flight_recorder.cc).
#pragma once

#include <functional>
#include <string>

namespace nexar::trace {

class CommRecorder;

void register_recorder(CommRecorder* r);
void unregister_recorder(CommRecorder* r);
// Calls fn on every live recorder (holding the list's lock: fn must not register one).
void for_each_recorder(const std::function<void(const CommRecorder&)>& fn);

struct ProcessIdentity {
  int rank = 0;
  int world_size = 1;
};
ProcessIdentity process_identity();
std::string host_name();

// NEXAR_TRACE_BUFFER and NEXAR_TRACE as the recorders use them.
struct RecorderConfig {
  uint64_t entries = 0;  // per ring; 0: off
  std::string trace_dir;  // "" : no trace file
};
RecorderConfig recorder_config();

}  // namespace nexar::trace
