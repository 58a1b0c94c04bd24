// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "api/call_checks.h"

#include "device/device_collective.h"
#include "device/staged_collective.h"

namespace nexar::api {

bool plain_checks_pass(comm::Comm& c, const coll::CollArgs& args) {
  // The count arrays of these kinds are read by the check, so it runs on every call.
  if (!remembered_kind(args.kind))
    return coll::validate_collective_args(args, c.rank(), c.size()).ok() && device::host_only_call(c, args);
  comm::PassedCallCache& last = c.passed_call();
  if (!last.same(args)) {
    if (!coll::validate_collective_args(args, c.rank(), c.size()).ok()) return false;
    uintptr_t lo, hi;
    device::buffer_span(args, c.rank(), c.size(), &lo, &hi);
    last.remember(args, lo, hi, comm::call_words(args, c.size()));
  }
  return device::host_only_span(c, args.kind, last.span_lo(args.kind), last.span_hi(args.kind));
}

}  // namespace nexar::api
