// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The plugin's per-thread error message (ABI: last_error()) and the checks that set it.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace nexar_cuda {

// Records "what: detail" for this thread and returns -1.
int fail(const char* what, const std::string& detail);
const char* last_error();

// 0 when e is cudaSuccess; else records "what: <CUDA error name and text>".
int check_cuda(cudaError_t e, const char* what);
// Applies the device init() chose to the calling thread (the runtime's device is per thread).
int use_device();
int chosen_device();

}  // namespace nexar_cuda
