#include "comm/comm_coll_context.h"

namespace nexar::comm {

CommCollContext::~CommCollContext() = default;

Status CommCollContext::isend(int peer, int tag, const void* buf, size_t bytes, coll::Pending* out) {
  auto* req = new p2p::RequestPtr;
  Status st = comm_.isend(comm_.coll_context(), buf, bytes, peer, tag, req);
  if (!st.ok()) {
    delete req;
    out->impl = nullptr;
    return st;
  }
  out->impl = req;
  return st;
}

Status CommCollContext::irecv(int peer, int tag, void* buf, size_t bytes, coll::Pending* out) {
  auto* req = new p2p::RequestPtr;
  Status st = comm_.irecv(comm_.coll_context(), buf, bytes, peer, tag, req);
  if (!st.ok()) {
    delete req;
    out->impl = nullptr;
    return st;
  }
  out->impl = req;
  return st;
}

Status CommCollContext::wait(coll::Pending* p) {
  auto* req = static_cast<p2p::RequestPtr*>(p->impl);
  if (!req) return Status(NEXAR_ERR_INTERNAL, "wait on a transfer that never started");
  p->impl = nullptr;
  Status st = comm_.wait(*req, deadline_);
  if (st.code() == NEXAR_ERR_INVALID_ARGUMENT)  // a longer message than expected: ranks disagree
    st = comm_.fail(Status(NEXAR_ERR_MISMATCH, "collective data longer than expected: " + st.message()));
  if (st.ok() && (*req)->kind == p2p::Request::Kind::RECV && (*req)->bytes != (*req)->capacity) {
    st = comm_.fail(Status(NEXAR_ERR_MISMATCH,
                           strprintf("rank %d sent %zu bytes of collective data where rank %d expected %zu",
                                     comm_.comm_rank_of_world((*req)->source), (*req)->bytes, comm_.rank(),
                                     (*req)->capacity)));
  }
  delete req;
  return st;
}

}  // namespace nexar::comm
