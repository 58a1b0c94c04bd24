// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include <cstring>

#include "device/adapter.h"

namespace nexar::device {

Status CpuAdapter::stage_for_send(const void* src, void* host, size_t bytes, void*) {
  if (bytes) std::memmove(host, src, bytes);
  return Status::Ok();
}

Status CpuAdapter::receive_to_device(const void* host, void* dst, size_t bytes, void*) {
  if (bytes) std::memmove(dst, host, bytes);
  return Status::Ok();
}

CpuAdapter& cpu_adapter() {
  static CpuAdapter a;
  return a;
}

}  // namespace nexar::device
