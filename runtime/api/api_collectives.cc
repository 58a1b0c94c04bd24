// Collectives of the C API. Each runs through the communicator's collective queue, so
// blocking and non-blocking ones complete in the order issued.
#include "api/api_state.h"
#include "comm/barrier.h"
#include "comm/comm_coll_context.h"

using nexar::Status;
using nexar::api::check_comm;
using nexar::api::finish;

namespace nexar::api {

namespace {
comm::CollTaskPtr barrier_task(const std::shared_ptr<comm::Comm>& c) {
  return std::make_shared<comm::CollTask>([c] {
    comm::CommCollContext ctx(*c);
    return comm::dissemination_barrier(ctx);
  });
}
}  // namespace

Status barrier_of(comm::Comm& c) {
  comm::CommCollContext ctx(c);
  return comm::dissemination_barrier(ctx);
}

}  // namespace nexar::api

extern "C" {

NEXAR_API nexar_result_t nexar_barrier(nexar_comm_t comm) {
  Status st = check_comm(comm);
  if (st.ok()) st = comm->comm->collectives().run_blocking(nexar::api::barrier_task(comm->comm));
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_ibarrier(nexar_comm_t comm, nexar_request_t* req) {
  if (!req) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "request pointer is NULL"));
  *req = nullptr;
  Status st = check_comm(comm);
  if (!st.ok()) return finish(comm, st);
  auto task = nexar::api::barrier_task(comm->comm);
  comm->comm->collectives().submit(task);
  *req = new nexar_request{comm->comm, nullptr, task};
  return NEXAR_SUCCESS;
}

}  // extern "C"
