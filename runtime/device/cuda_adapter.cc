// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/cuda_adapter.h"

#include <algorithm>

#include "core/params.h"

namespace nexar::device {

namespace {

// A stream per thread for staging: threads staging for different communicators never
// wait for each other's copies. Destroyed when the thread ends.
struct ThreadStream {
  const CudaPlugin* plugin = nullptr;
  void* stream = nullptr;
  ~ThreadStream() {
    if (stream) (void)plugin->api->stream_destroy(stream);
  }
};
thread_local ThreadStream t_stream;

}  // namespace

size_t chunk_bytes() {
  static const size_t v = static_cast<size_t>(std::max<int64_t>(param::NEXAR_CUDA_CHUNK_BYTES.get(), 64 * 1024));
  return v;
}

Status CudaAdapter::resolve(void* stream, void** out) {
  if (stream) {
    *out = stream;
    return Status::Ok();
  }
  if (!t_stream.stream) {
    if (p_.api->stream_create(&t_stream.stream) != 0) return plugin_error(p_, "staging stream");
    t_stream.plugin = &p_;
  }
  *out = t_stream.stream;
  return Status::Ok();
}

Status CudaAdapter::copy(void* dst, const void* src, size_t bytes, int kind, void* stream) {
  void* s = nullptr;
  NX_RETURN_IF_ERROR(resolve(stream, &s));
  const size_t chunk = chunk_bytes();
  for (size_t off = 0; off < bytes; off += chunk) {
    const size_t n = std::min(chunk, bytes - off);
    if (p_.api->memcpy_async(static_cast<uint8_t*>(dst) + off, static_cast<const uint8_t*>(src) + off, n, kind, s) != 0)
      return plugin_error(p_, kind == NEXAR_COPY_D2H ? "device-to-host copy" : "host-to-device copy");
  }
  return Status::Ok();
}

Status CudaAdapter::stage_for_send(const void* src, void* host, size_t bytes, void* stream) {
  return copy(host, src, bytes, NEXAR_COPY_D2H, stream);
}

Status CudaAdapter::receive_to_device(const void* host, void* dst, size_t bytes, void* stream) {
  return copy(dst, host, bytes, NEXAR_COPY_H2D, stream);
}

Status CudaAdapter::sync(void* stream) {
  void* s = nullptr;
  NX_RETURN_IF_ERROR(resolve(stream, &s));
  if (p_.api->stream_sync(s) != 0) return plugin_error(p_, "stream synchronize");
  return Status::Ok();
}

Status CudaAdapter::copy_in(const void* src, void* host, size_t bytes, void* stream) {
  if (bytes == 0) return Status::Ok();
  NX_RETURN_IF_ERROR(stage_for_send(src, host, bytes, stream));
  return sync(stream);
}

Status CudaAdapter::copy_out(const void* host, void* dst, size_t bytes, void* stream) {
  if (bytes == 0) return Status::Ok();
  NX_RETURN_IF_ERROR(receive_to_device(host, dst, bytes, stream));
  return sync(stream);
}

}  // namespace nexar::device
