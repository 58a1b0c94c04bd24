// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// New communicators: split and dup. Each runs in the parent's collective order.
#include "api/api_state.h"
#include "comm/comm_split.h"

using nexar::Status;
using nexar::api::check_comm;
using nexar::api::finish;

namespace {

nexar_result_t make_child(nexar_comm_t comm, nexar_comm_t* newcomm,
                          std::function<Status(nexar::comm::Comm&, std::shared_ptr<nexar::comm::Comm>*)> make) {
  if (!newcomm) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "newcomm is NULL"));
  *newcomm = nullptr;
  Status st = check_comm(comm);
  if (!st.ok()) return finish(comm, st);
  std::shared_ptr<nexar::comm::Comm> child;
  auto parent = comm->comm;
  auto task = std::make_shared<nexar::comm::CollTask>([&] { return make(*parent, &child); });
  st = parent->collectives().run_blocking(task);
  if (!st.ok()) return finish(comm, st);
  if (child) *newcomm = nexar::api::new_handle(child, nullptr);
  return NEXAR_SUCCESS;
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_comm_split(nexar_comm_t comm, int color, int key, nexar_comm_t* newcomm) {
  if (color < 0 && color != NEXAR_UNDEFINED)
    return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT,
                               nexar::strprintf("split color %d is negative and not NEXAR_UNDEFINED", color)));
  return make_child(comm, newcomm, [color, key](nexar::comm::Comm& p, std::shared_ptr<nexar::comm::Comm>* out) {
    return nexar::comm::split(p, color, key, out);
  });
}

NEXAR_API nexar_result_t nexar_comm_dup(nexar_comm_t comm, nexar_comm_t* newcomm) {
  return make_child(comm, newcomm, [](nexar::comm::Comm& p, std::shared_ptr<nexar::comm::Comm>* out) {
    return nexar::comm::dup(p, out);
  });
}

}  // extern "C"
