// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a communicator holds for device buffers, kept beside it (keyed by the comm): the
// CUDA stream the program set (nexar_comm_set_cuda_stream), the communicator's own stream,
// and the NCCL hierarchy once built. Released by release_comm() when the comm is destroyed.
#pragma once

#include <memory>
#include <mutex>

#include "comm/comm.h"
#include "core/status.h"
#include "device/hierarchy.h"
#include "device/plugin_loader.h"

namespace nexar::device {

class DeviceComm {
 public:
  explicit DeviceComm(const CudaPlugin& p) : plugin(p) {}
  ~DeviceComm();
  const CudaPlugin& plugin;

  void set_user_stream(void* s);
  void* user_stream();
  // The stream device work of this comm is ordered on: the program's, else the comm's own
  // (created on first use). *user tells which.
  Status work_stream(void** out, bool* user);

  // Built at most once, inside a collective (the comm's queue serialises them).
  bool hierarchy_tried = false;
  std::unique_ptr<Hierarchy> hierarchy;

 private:
  std::mutex mu_;
  void* user_stream_ = nullptr;
  void* own_stream_ = nullptr;
};

// The local rank used to pick this process's GPU: NEXAR_LOCAL_RANK, else c's.
int gpu_local_rank(const comm::Comm& c);
// c's device state, created (loading the plugin) on first need; NEXAR_ERR_UNSUPPORTED
// when CUDA support is not available.
Status device_comm(const comm::Comm& c, std::shared_ptr<DeviceComm>* out);
// The state if it exists (no plugin load).
std::shared_ptr<DeviceComm> find_device_comm(const comm::Comm& c);
// Drops c's state (its NCCL communicator and sub-communicators). Cheap when there is none.
void release_comm(const comm::Comm* c);

}  // namespace nexar::device
