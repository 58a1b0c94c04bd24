#include "api/api_state.h"

#include <unordered_map>

#include "core/dtype.h"

namespace nexar::api {

namespace {
thread_local std::unordered_map<const void*, std::string> t_last_error;
}

nexar_result_t finish(nexar_comm_t comm, const Status& st) {
  if (!st.ok()) t_last_error[comm] = st.message().empty() ? nexar_result_string(st.code()) : st.message();
  return st.code();
}

const char* last_error(nexar_comm_t comm) {
  auto it = t_last_error.find(comm);
  return it == t_last_error.end() ? "" : it->second.c_str();
}

Status check_comm(nexar_comm_t comm) {
  if (!comm) return Status(NEXAR_ERR_INVALID_ARGUMENT, "communicator is NULL");
  return comm->comm->check_usable();
}

Status check_buffer(const void* buf, size_t count, nexar_dtype_t dtype, const char* what, size_t* bytes) {
  if (!dtype_valid(dtype))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("unknown dtype %d", static_cast<int>(dtype)));
  if (count > SIZE_MAX / dtype_size(dtype))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("%s: count %zu overflows", what, count));
  if (!buf && count > 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("%s is NULL with count %zu", what, count));
  *bytes = count * dtype_size(dtype);
  return Status::Ok();
}

Status check_peer(const comm::Comm& c, int peer, bool any_ok) {
  if (any_ok && peer == NEXAR_ANY_SOURCE) return Status::Ok();
  if (peer < 0 || peer >= c.size())
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("peer %d is outside the communicator's ranks [0, %d)", peer, c.size()));
  return Status::Ok();
}

}  // namespace nexar::api

extern "C" NEXAR_API const char* nexar_comm_last_error(nexar_comm_t comm) { return nexar::api::last_error(comm); }
