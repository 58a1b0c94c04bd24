// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Device buffers in the C API: the CUDA stream of a communicator, nexar_comm_sync, and the
// event operations of the C++ StreamSyncOps. Loading CUDA support (the plugin) happens in
// runtime/device; a call that needs it returns NEXAR_ERR_UNSUPPORTED when it is missing.
#include "api/api_state.h"
#include "device/device_comm.h"

using nexar::Status;
using nexar::api::check_comm;
using nexar::api::finish;
using nexar::device::DeviceComm;

namespace {

// comm's device state, loading CUDA support (the call "asks for CUDA").
Status device_of(nexar_comm_t comm, const char* call, std::shared_ptr<DeviceComm>* d) {
  NX_RETURN_IF_ERROR(check_comm(comm));
  Status st = nexar::device::device_comm(*comm->comm, d);
  return st.ok() ? st : st.with_context(call);
}

// stream, or comm's stream when stream is NULL.
Status stream_or_comms(DeviceComm& d, void* stream, void** out) {
  if (stream) {
    *out = stream;
    return Status::Ok();
  }
  bool user = false;
  return d.work_stream(out, &user);
}

Status cuda_call(DeviceComm& d, int rc, const char* what) {
  return rc == 0 ? Status::Ok() : nexar::device::plugin_error(d.plugin, what);
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_comm_set_cuda_stream(nexar_comm_t comm, void* cuda_stream) {
  Status st = check_comm(comm);
  if (!st.ok()) return finish(comm, st);
  if (!cuda_stream) {  // unsetting needs no CUDA
    if (auto d = nexar::device::find_device_comm(*comm->comm)) d->set_user_stream(nullptr);
    return NEXAR_SUCCESS;
  }
  std::shared_ptr<DeviceComm> d;
  st = device_of(comm, "nexar_comm_set_cuda_stream", &d);
  if (st.ok()) d->set_user_stream(cuda_stream);
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_comm_sync(nexar_comm_t comm) {
  Status st = check_comm(comm);
  if (!st.ok()) return finish(comm, st);
  auto d = nexar::device::find_device_comm(*comm->comm);
  if (!d) return NEXAR_SUCCESS;  // no device work was ever issued on comm
  void* s = nullptr;
  st = stream_or_comms(*d, nullptr, &s);
  if (st.ok()) st = cuda_call(*d, d->plugin.api->stream_sync(s), "nexar_comm_sync");
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_cuda_event_create(nexar_comm_t comm, void** cuda_event) {
  if (!cuda_event) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_cuda_event_create: event is NULL"));
  *cuda_event = nullptr;
  std::shared_ptr<DeviceComm> d;
  Status st = device_of(comm, "nexar_cuda_event_create", &d);
  if (st.ok()) st = cuda_call(*d, d->plugin.api->event_create(cuda_event), "cudaEventCreate");
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_cuda_event_destroy(nexar_comm_t comm, void* cuda_event) {
  if (!cuda_event) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_cuda_event_destroy: event is NULL"));
  std::shared_ptr<DeviceComm> d;
  Status st = device_of(comm, "nexar_cuda_event_destroy", &d);
  if (st.ok()) st = cuda_call(*d, d->plugin.api->event_destroy(cuda_event), "cudaEventDestroy");
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_cuda_event_record(nexar_comm_t comm, void* cuda_event, void* cuda_stream) {
  if (!cuda_event) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_cuda_event_record: event is NULL"));
  std::shared_ptr<DeviceComm> d;
  void* s = nullptr;
  Status st = device_of(comm, "nexar_cuda_event_record", &d);
  if (st.ok()) st = stream_or_comms(*d, cuda_stream, &s);
  if (st.ok()) st = cuda_call(*d, d->plugin.api->event_record(cuda_event, s), "cudaEventRecord");
  return finish(comm, st);
}

NEXAR_API nexar_result_t nexar_cuda_stream_wait_event(nexar_comm_t comm, void* cuda_stream, void* cuda_event) {
  if (!cuda_event) return finish(comm, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_cuda_stream_wait_event: event is NULL"));
  std::shared_ptr<DeviceComm> d;
  void* s = nullptr;
  Status st = device_of(comm, "nexar_cuda_stream_wait_event", &d);
  if (st.ok()) st = stream_or_comms(*d, cuda_stream, &s);
  if (st.ok()) st = cuda_call(*d, d->plugin.api->stream_wait_event(s, cuda_event), "cudaStreamWaitEvent");
  return finish(comm, st);
}

}  // extern "C"
