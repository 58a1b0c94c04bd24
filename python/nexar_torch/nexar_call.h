// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One nexar collective in both its forms, as a deferred Work holds it (work.h): every
// blocking collective of nexar's API has a non-blocking twin taking the same arguments
// and the request last.
#pragma once

#include "nexar_torch/work.h"

namespace nexar_torch {

// The call blocking(args...) when run to completion (req null), non_blocking(args..., req)
// when started. The arguments are kept by value; what they point to must outlive the Work.
template <class Blocking, class NonBlocking, class... Args>
Call nexar_call(Blocking blocking, NonBlocking non_blocking, Args... args) {
  return [=](nexar_request_t *req) { return req ? non_blocking(args..., req) : blocking(args...); };
}

}  // namespace nexar_torch
