// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Finds, loads and checks the CUDA plugin (libnexar-cuda.so) with dlopen, once per process.
// Where: NEXAR_CUDA_PLUGIN if set, else next to the library holding this code
// (libnexar.so: dladdr), else the dynamic linker's search path.
#pragma once

#include <string>

#include "core/status.h"
#include "device/plugin_abi.h"

namespace nexar::device {

struct CudaPlugin {
  const nexar_cuda_plugin_table_v1* api = nullptr;
  int device = -1;      // the GPU this process uses
  std::string path;     // where it was loaded from
};

// The plugin, loaded and initialised (GPU chosen by local_rank) on the first call. Returns
// NEXAR_ERR_UNSUPPORTED naming the reason (not found, wrong ABI, no usable GPU) when CUDA
// support cannot be had; the first outcome is kept, so a failure is not retried per call.
Status cuda_plugin(int local_rank, const CudaPlugin** out);

// The path cuda_plugin() would try first.
std::string default_plugin_path();
// dlopens path and checks its table (symbol, ABI version, size, entries); no CUDA call is
// made. NEXAR_ERR_UNSUPPORTED with the reason otherwise. The library stays loaded.
Status open_plugin(const std::string& path, const nexar_cuda_plugin_table_v1** out);

// "what: <plugin's last error>" as NEXAR_ERR_SYSTEM (a CUDA or NCCL call failed).
Status plugin_error(const CudaPlugin& p, const char* what);

}  // namespace nexar::device
