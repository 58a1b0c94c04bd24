// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/pinned_pool.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace nexar::device {

namespace {

constexpr size_t kMinClass = 64 * 1024;
constexpr size_t kMaxCached = 256u << 20;

struct Pool {
  std::mutex mu;
  std::multimap<size_t, void*> free;  // capacity -> buffer
  size_t cached = 0;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: buffers may be returned during exit
  return *p;
}

size_t size_class(size_t bytes) {
  size_t c = kMinClass;
  while (c < bytes && c < (SIZE_MAX >> 1)) c <<= 1;
  return c < bytes ? bytes : c;
}

}  // namespace

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : plugin_(std::exchange(o.plugin_, nullptr)), ptr_(std::exchange(o.ptr_, nullptr)),
      capacity_(std::exchange(o.capacity_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    plugin_ = std::exchange(o.plugin_, nullptr);
    ptr_ = std::exchange(o.ptr_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() { release(); }

Status PinnedBuffer::acquire(const CudaPlugin& p, size_t bytes, PinnedBuffer* out) {
  out->release();
  if (bytes == 0) return Status::Ok();
  const size_t want = size_class(bytes);
  {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    auto it = pl.free.lower_bound(want);
    if (it != pl.free.end() && it->first <= 2 * want) {
      out->plugin_ = &p;
      out->capacity_ = it->first;
      out->ptr_ = it->second;
      pl.cached -= it->first;
      pl.free.erase(it);
      return Status::Ok();
    }
  }
  void* mem = nullptr;
  if (p.api->host_alloc(want, &mem) != 0)
    return Status(NEXAR_ERR_SYSTEM, strprintf("pinned staging buffer of %zu bytes: %s", want, p.api->last_error()));
  out->plugin_ = &p;
  out->ptr_ = mem;
  out->capacity_ = want;
  return Status::Ok();
}

void PinnedBuffer::release() {
  if (!ptr_) return;
  Pool& pl = pool();
  {
    std::lock_guard<std::mutex> lock(pl.mu);
    if (pl.cached + capacity_ <= kMaxCached) {
      pl.free.emplace(capacity_, ptr_);
      pl.cached += capacity_;
      ptr_ = nullptr;
    }
  }
  if (ptr_) (void)plugin_->api->host_free(ptr_);
  ptr_ = nullptr;
  capacity_ = 0;
}

}  // namespace nexar::device
