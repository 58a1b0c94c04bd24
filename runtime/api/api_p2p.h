// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the point-to-point entry points share (api_p2p.cc, api_probe.cc, api_iovec.cc,
// api_group.cc): starting a send or receive with its flight record, waiting for it, and
// a receive's status.
#pragma once

#include <functional>
#include <string>

#include "api/api_state.h"

namespace nexar::api {

// Argument checks of a send (peer, tag >= 0) and of a receive or probe (peer or
// NEXAR_ANY_SOURCE, tag >= 0 or NEXAR_ANY_TAG); the communicator must be usable.
Status check_send_args(nexar_comm_t comm, int peer, int tag);
Status check_recv_args(nexar_comm_t comm, int peer, int tag);

// Starts a send or receive of bytes on comm's point-to-point context (host or CUDA
// buffer), recorded in the flight recorder as `kind` with count elements of dtype.
// What the flight recorder keeps of a send, receive or probe (packed only when it records).
struct P2pFacts {
  trace::CallKind kind;
  size_t count;
  nexar_dtype_t dtype;
  int peer;
  int tag;
};
P2pFacts p2p_facts(trace::CallKind kind, size_t count, nexar_dtype_t dtype, int peer, int tag);
// Opens c's flight record of f (nothing when the recorder is off).
trace::P2pMark record_p2p(comm::Comm& c, const P2pFacts& f);

Status start_send(nexar_comm_t comm, const void* buf, size_t bytes, const P2pFacts& f,
                  p2p::RequestPtr* out, trace::P2pMark* mark);
Status start_recv(nexar_comm_t comm, void* buf, size_t bytes, const P2pFacts& f, p2p::RequestPtr* out,
                  trace::P2pMark* mark);

// Waits for a send or receive (recorded as waiting on its peer, then ended).
Status wait_p2p(comm::Comm& c, const p2p::RequestPtr& r, const trace::P2pMark& mark);
// Waits for a queued collective, bounded by c's timeout from its start (it may be queued
// behind others); a failure breaks c.
Status wait_collective(comm::Comm& c, comm::CollTask& task);
// Waits for a request without freeing it.
Status wait_request(nexar_request_t req);

// A receive's status: who sent the message matched, its tag and size (also after a
// message too long for the buffer); source and tag -1, bytes 0 when none was matched or
// r is not a receive. status may be NULL.
void fill_status(const comm::Comm& c, const p2p::Request* r, nexar_status_t* status);

// Starts a posted send or receive: its request and flight record.
using StartFn = std::function<Status(p2p::RequestPtr*, trace::P2pMark*)>;
// Runs a send or receive: posted to the thread's open group (api_group.h), else started
// and waited for (req NULL: the blocking forms, status filled for a receive) or handed
// back in *req. early: an argument error found before; returned (and recorded) as is.
nexar_result_t run_p2p(nexar_comm_t comm, bool send, int peer, int tag, Status early, const StartFn& start,
                       nexar_request_t* req, nexar_status_t* status);

// "send to rank 2 (tag 5)", "receive from any rank (any tag)": an operation in messages.
std::string describe_p2p(bool send, int peer, int tag);

}  // namespace nexar::api
