// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The plugin's one exported symbol: the versioned function table libnexar loads.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include "device/plugin_abi.h"

namespace nexar_cuda {
void fill_runtime_entries(nexar_cuda_plugin_table_v1* t);
void fill_nccl_entries(nexar_cuda_plugin_table_v1* t);
}  // namespace nexar_cuda

namespace {

const nexar_cuda_plugin_table_v1* build_table() {
  static nexar_cuda_plugin_table_v1 table{};
  static std::string description;
  table.abi_version = NEXAR_CUDA_PLUGIN_ABI_VERSION;
  table.struct_size = sizeof(nexar_cuda_plugin_table_v1);
  description = "CUDA runtime " + std::to_string(CUDART_VERSION) + ", NCCL " + std::to_string(NCCL_VERSION_CODE);
  table.description = description.c_str();
  nexar_cuda::fill_runtime_entries(&table);
  nexar_cuda::fill_nccl_entries(&table);
  return &table;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const nexar_cuda_plugin_table_v1* nexar_cuda_plugin_v1() {
  static const nexar_cuda_plugin_table_v1* table = build_table();  // thread-safe once
  return table;
}
