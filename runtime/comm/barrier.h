// The barrier every communicator needs from birth (init, destroy): dissemination, in
// ceil(log2 n) rounds of one zero-byte message each way.
#pragma once

#include "collectives/coll_context.h"

namespace nexar::comm {

Status dissemination_barrier(coll::CollContext& ctx);

}  // namespace nexar::comm
