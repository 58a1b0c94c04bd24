// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Fault tolerance: revoke, agree, shrink, failed_ranks (docs/fault-tolerance.md). None of
// them checks that comm is usable: they are what a broken or revoked communicator accepts.
#include "api/api_state.h"
#include "comm/comm_ft.h"

using nexar::Status;
using nexar::api::finish;

extern "C" {

NEXAR_API nexar_result_t nexar_comm_revoke(nexar_comm_t comm) {
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h);
  nexar::trace::CommRecorder& rec = comm->comm->recorder();
  const nexar::trace::P2pMark m = rec.begin_call(nexar::trace::CallKind::kRevoke);
  comm->comm->revoke();
  rec.end_p2p(m, Status::Ok());
  return NEXAR_SUCCESS;
}

NEXAR_API nexar_result_t nexar_comm_agree(nexar_comm_t comm, int* flag) {
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h);
  if (!flag) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_comm_agree: flag is NULL"));
  nexar::comm::ft::Decision d;
  nexar::trace::CommRecorder& rec = comm->comm->recorder();
  const nexar::trace::P2pMark m = rec.begin_call(nexar::trace::CallKind::kAgree);
  Status st = nexar::comm::agree(*comm->comm, *flag, &d);
  rec.end_p2p(m, st);
  if (st.ok() || st.code() == NEXAR_ERR_PEER_LOST) *flag = d.flag;
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_comm_shrink(nexar_comm_t comm, nexar_comm_t* newcomm) {
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h);
  if (!newcomm) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_comm_shrink: newcomm is NULL"));
  *newcomm = nullptr;
  std::shared_ptr<nexar::comm::Comm> child;
  nexar::trace::CommRecorder& rec = comm->comm->recorder();
  const nexar::trace::P2pMark m = rec.begin_call(nexar::trace::CallKind::kShrink);
  Status st = nexar::comm::shrink(*comm->comm, &child);
  rec.end_p2p(m, st);
  if (!st.ok()) return finish(comm, st);
  // A shrunk world carries the world too: the last of them says goodbye to the peers.
  if (comm->world) comm->world->add_handle();
  *newcomm = nexar::api::new_handle(child, comm->world);
  return NEXAR_SUCCESS;
}

NEXAR_API nexar_result_t nexar_comm_failed_ranks(nexar_comm_t comm, int* ranks, size_t capacity, size_t* count) {
  if (Status h = nexar::api::check_handle(comm); !h.ok()) return finish(comm, h);
  if (!count || (!ranks && capacity > 0))
    return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT,
                               nexar::strprintf("nexar_comm_failed_ranks: %s is NULL", count ? "ranks" : "count")));
  std::vector<int> failed = nexar::comm::failed_ranks(*comm->comm);
  *count = failed.size();
  for (size_t i = 0; i < failed.size() && i < capacity; ++i) ranks[i] = failed[i];
  return NEXAR_SUCCESS;
}

}  // extern "C"
