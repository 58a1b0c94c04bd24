// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Whether a call's algorithm choice needs a log line (collective.cc writes them): INFO
// shows each change of choice per collective kind, TRACE every call.
#pragma once

#include <atomic>

#include "collectives/coll_kind.h"
#include "core/log.h"

namespace nexar::coll {

struct AlgoDesc;  // algo_table.h

// The last algorithm logged at INFO per collective kind.
extern std::atomic<const AlgoDesc*> g_last_logged[kCollKindCount];

// Whether running algo for a call of kind logs nothing: it is the choice last logged and
// TRACE is off (two loads; the usual case of a loop's calls).
inline bool choice_logged(CollKind kind, const AlgoDesc* algo) {
  return g_last_logged[static_cast<int>(kind)].load(std::memory_order_relaxed) == algo &&
         !log_enabled(LogLevel::TRACE, COLL);
}

}  // namespace nexar::coll
