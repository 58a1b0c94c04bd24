// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Lifetime and queries: init, destroy, abort, rank/size, timeouts, version.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "api/api_state.h"
#include "bootstrap/launch_env.h"
#include "core/log.h"
#include "core/params.h"
#include "device/device_comm.h"
#include "trace/flight_recorder.h"
#include "trace/trace_log.h"

using nexar::Status;
using nexar::api::check_comm;
using nexar::api::finish;

namespace nexar::api {

nexar_result_t start_world(const bootstrap::LaunchInfo& info, Status st, const char* fn, nexar_comm_t* world) {
  std::shared_ptr<bootstrap::World> w;
  if (st.ok()) {
    log_set_rank(info.rank);
    trace::set_process(info.rank, info.world_size);
    st = bootstrap::World::create(info, &w);
  }
  if (!st.ok()) {
    // Loud by default (WARN): a rank that cannot start says why even if the program ignores the result.
    NX_WARN(INIT, "%s failed: %s", fn, st.to_string().c_str());
    return finish(nullptr, st.with_context(fn));
  }
  double timeout = param::NEXAR_TIMEOUT.get();
  nexar_comm_t c = new_handle(bootstrap::make_world_comm(w, timeout), w);
  w->add_handle();
  NX_INFO(INIT, "rank %d of %d ready (local rank %d of %d)", info.rank, info.world_size, c->comm->local_rank(),
          c->comm->local_size());
  *world = c;
  return NEXAR_SUCCESS;
}

}  // namespace nexar::api

extern "C" {

NEXAR_API const char* nexar_version(void) { return NEXAR_VERSION_STRING; }

NEXAR_API nexar_result_t nexar_init(nexar_comm_t* world) {
  if (!world) return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_init: world is NULL"));
  *world = nullptr;
  nexar::params::check_environment();
  nexar::params::log_set_params();
  nexar::bootstrap::LaunchInfo info;
  Status st = nexar::bootstrap::read_launch_env(&info);
  return nexar::api::start_world(info, st, "nexar_init", world);
}

NEXAR_API nexar_result_t nexar_comm_destroy(nexar_comm_t comm) {
  if (!comm) return NEXAR_SUCCESS;
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h.with_context("nexar_comm_destroy"));
  nexar::device::release_comm(comm->comm.get());  // its NCCL communicator, if any
  // Collective: no rank leaves while others may still need it. A broken communicator
  // cannot synchronise; it is only freed.
  const bool usable = comm->comm->check_usable().ok();
  Status st;
  // tests/integration/lazy_test.cc reads this line: what the program's own calls connected.
  if (comm->world) NX_INFO(INIT, "%s before the closing barrier", comm->world->connection_summary().c_str());
  // tests/integration/topology_test.cc reads this one: what the program's own calls relayed.
  if (const std::string relayed = comm->world ? comm->world->relay_summary() : ""; !relayed.empty())
    NX_INFO(INIT, "%s before the closing barrier", relayed.c_str());
  if (usable) st = nexar::api::barrier_of(comm->comm);
  // The world's last handle (nexar_init's, or a shrink of it) closes the connections. On
  // a broken communicator it does not wait for the peers' goodbyes (a peer that stopped
  // answering would hold it up for another timeout), only, briefly, for its last messages
  // to reach the live peers.
  const bool last_handle = comm->world && comm->world->drop_handle();
  if (last_handle && !usable)
    (void)comm->world->shutdown(std::min(comm->comm->deadline(), nexar::p2p::Clock::now() + std::chrono::seconds(1)),
                                /*broken=*/true);
  if (last_handle && usable && st.ok()) st = comm->world->shutdown(comm->comm->deadline());
  if (last_handle) {
    Status t = nexar::trace::write_trace_file();  // NEXAR_TRACE
    if (!t.ok()) NX_WARN(INIT, "%s", t.to_string().c_str());
  }
  nexar::api::release_handle(comm);
  return finish(nullptr, st);
}

NEXAR_API nexar_result_t nexar_comm_abort(nexar_comm_t comm) {
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h);
  comm->comm->abort(Status(NEXAR_ERR_ABORTED, "nexar_comm_abort was called"));
  return NEXAR_SUCCESS;
}

#define NX_QUERY(fn, out, expr)                                                              \
  NEXAR_API nexar_result_t fn(nexar_comm_t comm, int* out) {                                 \
    if (!out) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, #fn ": NULL argument"));         \
    if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h.with_context(#fn)); \
    *out = (expr);                                                                           \
    return NEXAR_SUCCESS;                                                                    \
  }
NX_QUERY(nexar_comm_rank, rank, comm->comm->rank())
NX_QUERY(nexar_comm_size, size, comm->comm->size())
NX_QUERY(nexar_comm_local_rank, local_rank, comm->comm->local_rank())
NX_QUERY(nexar_comm_local_size, local_size, comm->comm->local_size())
#undef NX_QUERY

NEXAR_API nexar_result_t nexar_comm_set_timeout(nexar_comm_t comm, double seconds) {
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h);
  if (!(seconds > 0) || !std::isfinite(seconds))
    return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("timeout %g s must be positive", seconds)));
  comm->comm->set_timeout(seconds);
  return NEXAR_SUCCESS;
}

}  // extern "C"
