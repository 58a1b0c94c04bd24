// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_comm_rebuild: a new generation of the world (bootstrap/world_generation.cc),
// between two agreements of the survivors on the old world (comm/ft_service.h), which
// works on a broken world and tolerates members dying meanwhile:
//   before  the failed set: every survivor has entered the rebuild and knows the same
//           ranks to wait for replacements of;
//   after   whether every live survivor formed the new generation: kept by all when they
//           did, else dropped by all with NEXAR_ERR_PEER_LOST. A survivor that dies
//           during the rebuild thus gives every other one the same outcome: a world
//           (whose member may be dead: its first call there fails) or the same error.
// Replacements take part in neither (they are not in the old world).
#include "api/api_state.h"
#include "comm/comm_ft.h"
#include "core/log.h"
#include "core/params.h"

using nexar::Status;
using nexar::api::finish;

namespace {

std::string ranks_text(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += nexar::strprintf("%s%d", s.empty() ? "" : ", ", r);
  return s.empty() ? "none" : s;
}

Status rebuild(nexar_comm& old, std::shared_ptr<nexar::bootstrap::World>* out) {
  nexar::comm::Comm& c = *old.comm;
  const double timeout = c.timeout();
  const auto start = nexar::p2p::Clock::now();
  nexar::comm::ft::Decision before;
  NX_RETURN_IF_ERROR(c.world()->ft->agree(c.p2p_context(), 1, c.deadline(), &before)
                         .with_context("agreeing on the failed ranks before the rebuild"));
  NX_INFO(INIT, "rank %d: rebuild: the survivors agree that rank(s) %s failed", c.rank(), ranks_text(before.failed).c_str());
  std::shared_ptr<nexar::bootstrap::World> w;
  const Status formed = nexar::bootstrap::World::rebuild(*old.world, timeout, &w);
  // Forming waits at most the timeout for the members' entries and a connect timeout each
  // for the ranks on this host and the QUIC mesh: the slowest survivor arrives by then.
  const double connect = nexar::param::NEXAR_CONNECT_TIMEOUT.get();
  const auto after_deadline = start + std::chrono::microseconds(static_cast<int64_t>((2 * timeout + 2 * connect) * 1e6));
  nexar::comm::ft::Decision after;
  NX_RETURN_IF_ERROR(c.world()->ft->agree(c.p2p_context(), formed.ok() ? 1 : 0, after_deadline, &after)
                         .with_context(formed.ok() ? "agreeing on the outcome of the rebuild"
                                                   : "agreeing on the outcome of the rebuild (" + formed.to_string() + ")"));
  if (after.flag == 0) {
    const std::string here = formed.ok() ? "formed here" : formed.message();
    return Status(NEXAR_ERR_PEER_LOST,
                  nexar::strprintf("not every survivor formed the new world, so none keeps it (here: %s; failed rank(s) "
                                   "of the old world: %s)",
                                   here.c_str(), ranks_text(after.failed).c_str()));
  }
  if (after.failed != before.failed)
    NX_WARN(INIT, "rank %d: rank(s) %s failed during the rebuild; the rebuilt world is kept by every survivor", c.rank(),
            ranks_text(after.failed).c_str());
  *out = std::move(w);
  return Status::Ok();
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_comm_rebuild(nexar_comm_t comm, nexar_comm_t* newcomm) {
  if (!newcomm) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_comm_rebuild: newcomm is NULL"));
  *newcomm = nullptr;
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h.with_context("nexar_comm_rebuild"));
  if (!comm->world)
    return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT,
                               "nexar_comm_rebuild works on the world only (this communicator came from split, dup "
                               "or shrink)"));
  // The old world may be broken: rebuilding needs none of its connections but the
  // agreement's control context.
  std::shared_ptr<nexar::bootstrap::World> w;
  nexar::trace::CommRecorder& rec = comm->comm->recorder();
  const nexar::trace::P2pMark m = rec.begin_call(nexar::trace::CallKind::kRebuild);
  Status st = rebuild(*comm, &w);
  rec.end_p2p(m, st);
  if (!st.ok()) {
    NX_WARN(INIT, "nexar_comm_rebuild failed: %s", st.to_string().c_str());
    return finish(comm, st.with_context("nexar_comm_rebuild"));
  }
  *newcomm = nexar::api::new_handle(nexar::bootstrap::make_world_comm(w, comm->comm->timeout()), w);
  w->add_handle();
  return NEXAR_SUCCESS;
}

}  // extern "C"
