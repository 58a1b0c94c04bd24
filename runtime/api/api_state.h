// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the C handles hold, and the helpers every API entry point shares: argument checks
// and the per-thread "last error" text.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "bootstrap/world.h"
#include "collectives/collective.h"
#include "comm/coll_queue.h"
#include "comm/comm.h"
#include "comm/rpc_call.h"
#include "p2p/request.h"

// Handles are never freed (api::new_handle / release_handle): a destroyed one has serial 0
// and no comm, so a call on it is NEXAR_ERR_INVALID_ARGUMENT, not a read of freed memory.
struct nexar_comm {
  std::shared_ptr<nexar::comm::Comm> comm;
  std::shared_ptr<nexar::bootstrap::World> world;  // set on the world communicator only
  std::atomic<uint64_t> serial{0};                 // unique while live; 0 once destroyed
};

struct nexar_request {
  std::shared_ptr<nexar::comm::Comm> comm;
  nexar::p2p::RequestPtr p2p;       // a send or receive, or
  nexar::comm::CollTaskPtr coll;    // a collective
  nexar_comm_t handle = nullptr;    // where a failure's detail is also recorded
  nexar::trace::P2pMark mark;       // a send or receive's flight record
  // Posted in a group that has not started it yet. The group's thread clears it (release)
  // after setting p2p/mark/early; another thread may wait for that (api::group::await_start).
  std::atomic<bool> grouped{false};
  nexar::Status early;              // why a grouped operation could not start
  std::unique_ptr<nexar::comm::rpc::Call> rpc;  // or a remote procedure call,
  size_t* rpc_result_bytes = nullptr;           // with where its result's size goes
};

namespace nexar::api {

// A live handle for c (world: on world communicators), and its end: the handle memory
// goes back to a pool, reused only after many others, and this thread's last error on it
// is dropped.
nexar_comm_t new_handle(std::shared_ptr<comm::Comm> c, std::shared_ptr<bootstrap::World> world);
void release_handle(nexar_comm_t comm);

// The world communicator of a process that info describes (nexar_init, nexar_init_rank),
// unless st (reading info) already failed; fn names the call in errors.
nexar_result_t start_world(const bootstrap::LaunchInfo& info, Status st, const char* fn, nexar_comm_t* world);
// Records st as this thread's last error on comm (when it failed) and returns its code.
nexar_result_t finish(nexar_comm_t comm, const Status& st);
// Checks comm is non-NULL and not destroyed.
Status check_handle(nexar_comm_t comm);
// Checks comm is a live handle and usable.
Status check_comm(nexar_comm_t comm);
const char* last_error(nexar_comm_t comm);
// Checks a buffer of count elements of dtype; *bytes gets its size.
Status check_buffer(const void* buf, size_t count, nexar_dtype_t dtype, const char* what, size_t* bytes);
// Runs nexar_comm_destroy's closing barrier on c through its collective queue (in order
// with other collectives); a rank in nexar_barrier meanwhile fails with NEXAR_ERR_MISMATCH.
Status barrier_of(const std::shared_ptr<comm::Comm>& c);

// Runs a collective (api_collectives.cc): blocking when nonblocking is false, else queued
// with *req completing it.
nexar_result_t start_collective(nexar_comm_t comm, const coll::CollArgs& args, nexar_request_t* req, bool nonblocking);
// CollArgs of the fixed-count form (the arrays left NULL).
coll::CollArgs coll_args(coll::CollKind kind, const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype,
                         nexar_op_t op, int root);
// Copies the count and displacement arrays a queued collective with a count per rank
// reads on this rank, points args at the copies, and returns their owner.
std::shared_ptr<const void> own_count_arrays(coll::CollArgs* args, int rank, int size);
// Checks a peer rank (any_ok: NEXAR_ANY_SOURCE allowed).
Status check_peer(const comm::Comm& c, int peer, bool any_ok);

}  // namespace nexar::api
