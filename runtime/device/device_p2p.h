// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Point to point on device buffers, staged through pinned host memory. A send copies the
// device buffer to pinned memory (chunked asynchronous copies) before handing it to the
// engine, so the wire carries one ordinary message and the peer may receive it into host
// or device memory alike; a receive lands in pinned memory and is copied to the device
// when the request is waited for. Host buffers go straight to the engine.
#pragma once

#include "comm/comm.h"
#include "p2p/request.h"

namespace nexar::device {

// As Comm::isend / Comm::irecv on c's point-to-point context. NEXAR_ERR_UNSUPPORTED when
// buf is device memory and CUDA support is not available.
Status isend(comm::Comm& c, const void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out);
Status irecv(comm::Comm& c, void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out);
// As Comm::wait, then finishes the request's staging (the copy of a received message to
// the device; releasing the pinned buffer).
Status wait(comm::Comm& c, const p2p::RequestPtr& r);

}  // namespace nexar::device
