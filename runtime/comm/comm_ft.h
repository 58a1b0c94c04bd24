// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The fault-tolerance calls on a communicator (nexar_comm_agree, nexar_comm_shrink,
// nexar_comm_failed_ranks; revoke is Comm::revoke). They work on broken and revoked
// communicators: they use the engine's control context (ft_service.h), never comm's own.
#pragma once

#include <memory>
#include <vector>

#include "comm/comm.h"
#include "comm/ft_service.h"

namespace nexar::comm {

// The next agreement on c: *d is the same on every live member. Ok when no member is
// known failed, NEXAR_ERR_PEER_LOST (naming them) when one is; other errors: this rank
// has no decision (timeout, or the others declared it failed).
Status agree(Comm& c, int32_t flag, ft::Decision* d);
// Ok or PEER_LOST from a decision, naming its failed ranks.
Status decision_status(const ft::Decision& d);
// A communicator of the members not failed in an agreement, in c's order, with context
// ids every survivor picked alike (the agreement's flag says none of them had it in use).
Status shrink(Comm& c, std::shared_ptr<Comm>* out);
// Comm ranks known failed here, ascending.
std::vector<int> failed_ranks(const Comm& c);

}  // namespace nexar::comm
