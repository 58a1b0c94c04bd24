// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Groups (nexar_group_start / nexar_group_end, NCCL's ncclGroupStart/End): per thread,
// while a group is open, sends, receives and collectives on any communicator are recorded
// instead of started; the outermost nexar_group_end starts them all (receives first, then
// sends, then the collectives queued on their communicators in posting order) and waits
// for every one, so a ring of blocking sends and receives, or collectives that other ranks
// reach only after this group's sends, cannot deadlock.
#pragma once

#include <atomic>
#include <string>

#include "api/api_p2p.h"
#include "comm/coll_queue.h"

namespace nexar::api::group {

namespace detail {
// Groups open on any thread: while none is (the usual case), active() answers without a
// thread-local lookup (a call through __tls_get_addr in a shared library). A thread sees
// its own increment, so a thread inside a group never reads 0 here.
extern std::atomic<int> g_open_groups;
// Whether this thread is inside a group (its thread-local depth).
bool open_here();
}  // namespace detail

// True while this thread is inside nexar_group_start ... nexar_group_end. Inline: the
// usual answer is one load.
inline bool active() { return detail::g_open_groups.load(std::memory_order_relaxed) != 0 && detail::open_here(); }

// Posts an operation to this thread's group. what names it in errors; early is an
// argument error found now (returned at once, and again by nexar_group_end). req: the
// caller's request slot (non-blocking forms) or NULL; status: filled when the group ends
// (receives with a status) or NULL. Returns what the call returns.
nexar_result_t post(nexar_comm_t comm, bool recv, std::string what, const Status& early, api::StartFn start,
                    nexar_request_t* req, nexar_status_t* status);

// Posts a collective: task is queued on comm's collective queue when the group ends.
// early: an argument error found now (task is then null); req as for post().
nexar_result_t post_collective(nexar_comm_t comm, std::string what, const Status& early, comm::CollTaskPtr task,
                               nexar_request_t* req);

// True when req is in this thread's open group (waiting for it here could never end).
bool holds(nexar_request_t req);

// Before nexar_wait frees req: a request still in this thread's open group is detached
// from its operation (which still runs at nexar_group_end). False when another thread's
// open group holds req: then it must not be freed.
bool detach(nexar_request_t req);

// A request of another thread's open group: waits until that group's end starts it
// (then it is an ordinary request), or NEXAR_ERR_TIMEOUT after timeout_s.
Status await_start(nexar_request_t req, double timeout_s);

}  // namespace nexar::api::group
