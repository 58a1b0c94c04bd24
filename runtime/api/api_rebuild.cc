// nexar_comm_rebuild: a new generation of the world (bootstrap/world_generation.cc).
#include "api/api_state.h"
#include "core/log.h"

using nexar::Status;
using nexar::api::finish;

extern "C" {

NEXAR_API nexar_result_t nexar_comm_rebuild(nexar_comm_t comm, nexar_comm_t* newcomm) {
  if (!comm || !newcomm)
    return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_comm_rebuild: NULL communicator or newcomm"));
  *newcomm = nullptr;
  if (!comm->world)
    return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT,
                               "nexar_comm_rebuild works on the world only (this communicator came from split, dup "
                               "or shrink)"));
  // The old world may be broken: rebuilding needs none of its connections.
  const double timeout = comm->comm->timeout();
  std::shared_ptr<nexar::bootstrap::World> w;
  Status st = nexar::bootstrap::World::rebuild(*comm->world, timeout, &w);
  if (!st.ok()) {
    NX_WARN(INIT, "nexar_comm_rebuild failed: %s", st.to_string().c_str());
    return finish(comm, st.with_context("nexar_comm_rebuild"));
  }
  *newcomm = new nexar_comm{nexar::bootstrap::make_world_comm(w, timeout), w};
  w->add_handle();
  return NEXAR_SUCCESS;
}

}  // extern "C"
