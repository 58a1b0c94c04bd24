// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// New communicators from old ones: split by (color, key) and dup. Both are collective over
// the parent and run in its collective order. Children share the parent's engine and
// connections; they get their own context ids, derived from the parent's ids, the child's
// number and its color by hashing, so no extra round trip is needed to agree on them.
#pragma once

#include <memory>

#include "comm/comm.h"

namespace nexar::comm {

// A child's context base: a block's base (context_registry.h), never 0 (the world's) nor
// the control context's block; derived by hashing, so every member computes the same.
uint32_t child_context(uint32_t parent_base, uint32_t child_number, int color, uint32_t salt);

// color >= 0 or NEXAR_UNDEFINED (then *out is null). Members are ordered by (key, parent rank).
Status split(Comm& parent, int color, int key, std::shared_ptr<Comm>* out);
// Same members and order as parent, new context ids.
Status dup(Comm& parent, std::shared_ptr<Comm>* out);

}  // namespace nexar::comm
