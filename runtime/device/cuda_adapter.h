// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The CUDA adapter: device <-> pinned host copies through the plugin, issued in chunks of
// NEXAR_CUDA_CHUNK_BYTES on a stream (the caller's, or this thread's own staging stream).
#pragma once

#include "device/adapter.h"
#include "device/plugin_loader.h"

namespace nexar::device {

class CudaAdapter final : public DeviceAdapter {
 public:
  explicit CudaAdapter(const CudaPlugin& p) : p_(p) {}
  const char* name() const override { return "cuda"; }
  Status stage_for_send(const void* src, void* host, size_t bytes, void* stream) override;
  Status receive_to_device(const void* host, void* dst, size_t bytes, void* stream) override;
  Status sync(void* stream) override;

  // stream, or this thread's staging stream when stream is null.
  Status resolve(void* stream, void** out);
  // Copies and waits: the whole transfer is done on return.
  Status copy_in(const void* src, void* host, size_t bytes, void* stream);    // device -> host
  Status copy_out(const void* host, void* dst, size_t bytes, void* stream);   // host -> device

 private:
  Status copy(void* dst, const void* src, size_t bytes, int kind, void* stream);
  const CudaPlugin& p_;
};

size_t chunk_bytes();  // NEXAR_CUDA_CHUNK_BYTES, at least 64 KiB

}  // namespace nexar::device
