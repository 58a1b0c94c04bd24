// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The device adapter: moves bytes between a buffer's memory and host memory the network
// can read (the seed's DeviceAdapter). The CPU adapter is built in: host memory needs no
// staging. The CUDA adapter (cuda_adapter.cc) drives the plugin's asynchronous copies.
#pragma once

#include <cstddef>

#include "core/status.h"

namespace nexar::device {

class DeviceAdapter {
 public:
  virtual ~DeviceAdapter() = default;
  virtual const char* name() const = 0;
  // Whether host code may read and write the buffers directly (reductions in place, as the
  // host collectives do). Only the CPU adapter can.
  virtual bool supports_host_offload() const { return false; }
  // host[0, bytes) <- src, ordered on stream (null: the adapter's own); complete after sync.
  virtual Status stage_for_send(const void* src, void* host, size_t bytes, void* stream) = 0;
  // dst <- host[0, bytes), ordered on stream; complete after sync.
  virtual Status receive_to_device(const void* host, void* dst, size_t bytes, void* stream) = 0;
  // Waits for every copy issued on stream.
  virtual Status sync(void* stream) = 0;
};

// Host memory: copies are memcpy and complete at once.
class CpuAdapter final : public DeviceAdapter {
 public:
  const char* name() const override { return "cpu"; }
  bool supports_host_offload() const override { return true; }
  Status stage_for_send(const void* src, void* host, size_t bytes, void* stream) override;
  Status receive_to_device(const void* host, void* dst, size_t bytes, void* stream) override;
  Status sync(void*) override { return Status::Ok(); }
};

CpuAdapter& cpu_adapter();

}  // namespace nexar::device
