// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "api/call_checks.h"

#include "device/cuda_detect.h"
#include "device/device_collective.h"
#include "device/staged_collective.h"

namespace nexar::api {

bool plain_checks_pass(comm::Comm& c, const coll::CollArgs& args) {
  // The count arrays of these kinds are read by the check, so it runs on every call.
  if (args.kind == coll::CollKind::ALLREDUCE_BUCKETED || coll::kind_traits(args.kind).vector)
    return coll::validate_collective_args(args, c.rank(), c.size()).ok() && device::host_only_call(c, args);
  comm::PassedCallCache& last = c.passed_call();
  if (!last.same(args)) {
    if (!coll::validate_collective_args(args, c.rank(), c.size()).ok()) return false;
    uintptr_t lo, hi;
    device::buffer_span(args, c.rank(), c.size(), &lo, &hi);
    last.remember(args, lo, hi);
  }
  // A barrier's question is whether a CUDA stream is set, not where its buffers are.
  if (args.kind == coll::CollKind::BARRIER) return device::host_only_call(c, args);
  // host_only_call's own test for these kinds, with the span remembered: host memory for
  // sure in the brk heap, or when no CUDA driver is loaded.
  return device::span_in_brk_heap(last.span_lo(args.kind), last.span_hi(args.kind)) || !device::cuda_driver_loaded();
}

}  // namespace nexar::api
