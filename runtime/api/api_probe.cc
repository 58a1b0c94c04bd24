// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_probe and nexar_iprobe: a message's source, tag and size before it is received.
#include "api/api_p2p.h"

using nexar::Status;
using nexar::api::finish;

namespace {

// Checks the arguments and translates the source to a world rank (or NEXAR_ANY_SOURCE).
Status probe_args(int source, int tag, nexar_comm_t comm, int* world_src) {
  NX_RETURN_IF_ERROR(nexar::api::check_recv_args(comm, source, tag));
  *world_src = source == NEXAR_ANY_SOURCE ? NEXAR_ANY_SOURCE : comm->comm->world_rank_of(source);
  return Status::Ok();
}

void fill(const nexar::comm::Comm& c, const nexar::p2p::Engine::Probed& p, nexar_status_t* status) {
  if (status) *status = nexar_status_t{c.comm_rank_of_world(p.src), p.tag, static_cast<size_t>(p.bytes)};
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_probe(int source, int tag, nexar_comm_t comm, nexar_status_t* status) {
  if (status) *status = nexar_status_t{-1, -1, 0};
  int src = 0;
  Status st = probe_args(source, tag, comm, &src);
  if (!st.ok()) return finish(comm, st);
  auto& c = *comm->comm;
  auto mark = nexar::api::record_p2p(c, nexar::api::p2p_facts(nexar::trace::CallKind::kProbe, 0, NEXAR_UINT8, source, tag));
  c.recorder().p2p_wait_begin(mark, source);
  nexar::p2p::Engine::Probed p;
  st = c.engine().probe(c.p2p_context(), src, tag, c.deadline(), &p);
  if (st.code() == NEXAR_ERR_TIMEOUT)
    st = Status(NEXAR_ERR_TIMEOUT, nexar::strprintf("probe for a message (%s) found none within %.3g s",
                                                    nexar::api::describe_p2p(false, source, tag).c_str(), c.timeout()));
  c.recorder().end_p2p(mark, st);
  if (st.ok()) fill(c, p, status);
  return finish(comm, c.fail(st));
}

NEXAR_API nexar_result_t nexar_iprobe(int source, int tag, nexar_comm_t comm, int* flag, nexar_status_t* status) {
  if (!flag) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_iprobe: flag is NULL"));
  *flag = 0;
  if (status) *status = nexar_status_t{-1, -1, 0};
  int src = 0;
  Status st = probe_args(source, tag, comm, &src);
  if (!st.ok()) return finish(comm, st);
  auto& c = *comm->comm;
  c.engine().waiter().poll();  // so that a loop of iprobes makes progress on shared memory
  bool found = false;
  nexar::p2p::Engine::Probed p;
  st = c.engine().iprobe(c.p2p_context(), src, tag, &found, &p);
  if (st.ok() && found) {
    *flag = 1;
    fill(c, p, status);
  }
  return finish(comm, c.fail(st));
}

}  // extern "C"
