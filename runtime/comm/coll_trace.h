// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the flight recorder keeps of a collective (trace/comm_recorder.h), from its
// arguments: kind, count, dtype, op and root where the kind takes them, packed
// (trace/call_kind.h; a snapshot decodes it).
#pragma once

#include "collectives/collective.h"
#include "trace/call_kind.h"

namespace nexar::comm {

trace::CallKind call_kind_of(coll::CollKind k);
// size: the communicator's.
trace::CallDesc coll_desc(const coll::CollArgs& args, int size);

}  // namespace nexar::comm
