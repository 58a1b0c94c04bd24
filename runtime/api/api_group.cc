// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_group_start / nexar_group_end: the thread's open group of posted sends, receives
// and collectives.
#include "api/api_group.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "api/api_p2p.h"
#include "device/device_p2p.h"

namespace nexar::api::group {

namespace {

struct Op {
  nexar_comm_t comm = nullptr;
  std::shared_ptr<comm::Comm> keep;  // the communicator stays alive until the group ends
  bool recv = false;
  std::string what;
  Status st;  // an argument error when posted, then the operation's result
  api::StartFn start;                // a send or receive, or
  comm::CollTaskPtr coll;            // a collective (queued when the group ends)
  nexar_request_t req = nullptr;     // the caller's request, if any
  nexar_status_t* status = nullptr;  // filled when the group ends
  p2p::RequestPtr r;
  trace::P2pMark mark;
};

struct Group {
  int depth = 0;
  std::vector<Op> ops;
};

thread_local Group t_group;

// Starts the posted operations, receives first (a message then finds its receive posted
// rather than waiting in the unexpected store), then sends, then collectives (queued on
// their communicators, whose workers run them while this thread waits), each kind in
// posting order: so every rank queues its collectives of one communicator in the same order.
void start_all(std::vector<Op>& ops) {
  for (bool recv : {true, false}) {
    for (Op& op : ops) {
      if (op.coll || op.recv != recv || !op.st.ok()) continue;
      op.st = op.start(&op.r, &op.mark);
      if (!op.req) continue;
      if (op.st.ok()) {
        op.req->p2p = op.r;
        op.req->mark = op.mark;
      } else {
        op.req->early = op.st;
      }
      op.req->grouped.store(false, std::memory_order_release);  // last: another thread may now wait
    }
  }
  for (Op& op : ops) {
    if (!op.coll) continue;
    op.keep->collectives().submit(op.coll);
    if (!op.req) continue;
    op.req->coll = op.coll;
    op.req->grouped.store(false, std::memory_order_release);
  }
}

// Waits for every started operation; the index of the first that failed (ops.size() if none).
size_t wait_all(std::vector<Op>& ops) {
  size_t failed = ops.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    Op& op = ops[i];
    if (op.status) *op.status = nexar_status_t{-1, -1, 0};
    if (op.coll) {
      op.st = wait_collective(*op.keep, *op.coll);
    } else if (op.r) {
      comm::Comm& c = *op.keep;
      // A request the caller holds is recorded as done when the caller waits for it.
      op.st = op.req ? device::wait(c, op.r) : wait_p2p(c, op.r, op.mark);
      fill_status(c, op.r.get(), op.status);
    }
    if (!op.st.ok() && failed == ops.size()) failed = i;
  }
  return failed;
}

}  // namespace

namespace detail {
std::atomic<int> g_open_groups{0};
bool open_here() { return t_group.depth > 0; }
}  // namespace detail

namespace {

// Adds an operation to this thread's group: its request (when the caller wants one and
// the operation can start) is the group's until the group starts it.
Op& add(nexar_comm_t comm, std::string what, const Status& early, nexar_request_t* req) {
  Op& op = t_group.ops.emplace_back();
  op.comm = comm;
  if (comm) op.keep = comm->comm;
  op.what = std::move(what);
  op.st = early;
  if (early.ok() && req) {
    *req = new nexar_request{comm->comm, nullptr, nullptr, comm, {}};
    (*req)->grouped.store(true, std::memory_order_relaxed);
    op.req = *req;
  }
  return op;
}

}  // namespace

nexar_result_t post(nexar_comm_t comm, bool recv, std::string what, const Status& early, StartFn start,
                    nexar_request_t* req, nexar_status_t* status) {
  Op& op = add(comm, std::move(what), early, req);
  op.recv = recv;
  op.start = std::move(start);
  op.status = status;
  if (status) *status = nexar_status_t{-1, -1, 0};
  return finish(comm, early);
}

nexar_result_t post_collective(nexar_comm_t comm, std::string what, const Status& early, comm::CollTaskPtr task,
                               nexar_request_t* req) {
  Op& op = add(comm, std::move(what), early, req);
  if (early.ok()) op.coll = std::move(task);
  return finish(comm, early);
}

bool holds(nexar_request_t req) {
  if (!req->grouped.load(std::memory_order_acquire)) return false;
  for (const Op& op : t_group.ops)
    if (op.req == req) return true;
  return false;
}

bool detach(nexar_request_t req) {
  if (!req->grouped.load(std::memory_order_acquire)) return true;
  for (Op& op : t_group.ops)
    if (op.req == req) {
      op.req = nullptr;
      return true;
    }
  return false;
}

Status await_start(nexar_request_t req, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::min(timeout_s, 1e9)));
  // Rare (a request handed to another thread before its group ended): a short poll.
  while (req->grouped.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() >= deadline)
      return Status(NEXAR_ERR_TIMEOUT, strprintf("the request belongs to another thread's group, not ended within "
                                                 "%.3g s (the request stays valid)", timeout_s));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::Ok();
}

}  // namespace nexar::api::group

using nexar::Status;
using nexar::api::finish;

extern "C" {

NEXAR_API nexar_result_t nexar_group_start(void) {
  if (nexar::api::group::t_group.depth++ == 0) nexar::api::group::detail::g_open_groups.fetch_add(1, std::memory_order_relaxed);
  return NEXAR_SUCCESS;
}

NEXAR_API nexar_result_t nexar_group_end(void) {
  auto& g = nexar::api::group::t_group;
  if (g.depth == 0)
    return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_group_end without a matching nexar_group_start"));
  if (--g.depth > 0) return NEXAR_SUCCESS;
  nexar::api::group::detail::g_open_groups.fetch_sub(1, std::memory_order_relaxed);
  std::vector<nexar::api::group::Op> ops = std::move(g.ops);
  g.ops.clear();
  nexar::api::group::start_all(ops);
  const size_t i = nexar::api::group::wait_all(ops);
  if (i == ops.size()) return NEXAR_SUCCESS;
  const auto& op = ops[i];
  Status st(op.st.code(), nexar::strprintf("operation %zu of %zu in the group (%s) failed: %s", i + 1, ops.size(),
                                           op.what.c_str(), op.st.message().c_str()));
  finish(op.comm, st);  // found under the operation's communicator and under NULL
  return finish(nullptr, st);
}

}  // extern "C"
