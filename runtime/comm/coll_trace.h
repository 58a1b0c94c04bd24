// What the flight recorder keeps of a collective (trace/comm_recorder.h), from its
// arguments: kind, count, dtype, op and root where the kind takes them, bytes.
#pragma once

#include <cstdint>

#include "collectives/collective.h"
#include "trace/call_record.h"

namespace nexar::comm {

trace::CallFacts coll_facts(const coll::CollArgs& args, uint32_t seq, int size);

}  // namespace nexar::comm
