// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Pinned (page-locked) host buffers for staging device memory, reused across operations:
// cudaHostAlloc costs milliseconds, far more than a small transfer. Buffers are kept in
// power-of-two size classes up to a bound on the cached total.
#pragma once

#include <cstddef>

#include "core/status.h"
#include "device/plugin_loader.h"

namespace nexar::device {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(PinnedBuffer&& o) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();  // back to the pool

  // At least bytes of pinned memory (none for 0 bytes).
  static Status acquire(const CudaPlugin& p, size_t bytes, PinnedBuffer* out);
  uint8_t* data() const { return static_cast<uint8_t*>(ptr_); }
  size_t capacity() const { return capacity_; }

 private:
  void release();
  const CudaPlugin* plugin_ = nullptr;
  void* ptr_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace nexar::device
