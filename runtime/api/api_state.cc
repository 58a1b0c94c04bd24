// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "api/api_state.h"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "collectives/collective.h"
#include "core/dtype.h"

namespace nexar::api {

namespace {

// This thread's last error per handle, with the handle's serial then: an entry for a
// handle destroyed since (or reused by another communicator) is stale.
struct LastError {
  uint64_t serial;
  std::string text;
};
thread_local std::unordered_map<const void*, LastError> t_last_error;
constexpr size_t kPruneAbove = 64;  // entries before the stale ones are dropped

uint64_t serial_of(nexar_comm_t comm) { return comm ? comm->serial.load(std::memory_order_acquire) : 0; }

// Released handles, reused oldest first once more than kKeep wait: a stale handle then
// most likely still finds itself destroyed.
struct HandlePool {
  std::mutex mu;
  std::deque<nexar_comm*> free;
  uint64_t next_serial = 1;
  static constexpr size_t kKeep = 256;
};
HandlePool& pool() {
  static auto* p = new HandlePool;  // never destroyed: handles outlive static destruction
  return *p;
}

}  // namespace

nexar_comm_t new_handle(std::shared_ptr<comm::Comm> c, std::shared_ptr<bootstrap::World> world) {
  HandlePool& p = pool();
  nexar_comm* h = nullptr;
  uint64_t serial;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    serial = p.next_serial++;
    if (p.free.size() > HandlePool::kKeep) {
      h = p.free.front();
      p.free.pop_front();
    }
  }
  if (!h) h = new nexar_comm;
  h->comm = std::move(c);
  h->world = std::move(world);
  h->serial.store(serial, std::memory_order_release);
  return h;
}

void release_handle(nexar_comm_t comm) {
  comm->serial.store(0, std::memory_order_release);
  comm->comm.reset();
  comm->world.reset();
  t_last_error.erase(comm);
  HandlePool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  p.free.push_back(comm);
}

nexar_result_t finish(nexar_comm_t comm, const Status& st) {
  if (st.ok()) return st.code();
  if (t_last_error.size() > kPruneAbove)
    std::erase_if(t_last_error, [](const auto& e) {
      return e.first && serial_of(static_cast<nexar_comm_t>(const_cast<void*>(e.first))) != e.second.serial;
    });
  t_last_error[comm] = LastError{serial_of(comm), st.message().empty() ? nexar_result_string(st.code()) : st.message()};
  return st.code();
}

const char* last_error(nexar_comm_t comm) {
  auto it = t_last_error.find(comm);
  return it == t_last_error.end() || it->second.serial != serial_of(comm) ? "" : it->second.text.c_str();
}

Status check_handle(nexar_comm_t comm) {
  if (!comm) return Status(NEXAR_ERR_INVALID_ARGUMENT, "communicator is NULL");
  if (serial_of(comm) == 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, "communicator was destroyed");
  return Status::Ok();
}

Status check_comm(nexar_comm_t comm) {
  if (serial_of(comm) == 0) return check_handle(comm);  // NULL or destroyed: it says which
  return comm->comm->check_usable();
}

Status check_buffer(const void* buf, size_t count, nexar_dtype_t dtype, const char* what, size_t* bytes) {
  if (!dtype_valid(dtype))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("unknown dtype %d", static_cast<int>(dtype)));
  size_t n = 0;
  if (Status st = coll::check_count(count, 1, dtype_size(dtype), &n); !st.ok()) return st.with_context(what);
  if (!buf && count > 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("%s is NULL with count %zu", what, count));
  *bytes = n;
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
