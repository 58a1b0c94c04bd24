// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/cuda_detect.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace nexar::device {

namespace {

// CUDA driver API values (cuda.h), declared here so that nothing includes or links CUDA.
constexpr int kAttrMemoryType = 2;   // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr int kAttrIsManaged = 8;    // CU_POINTER_ATTRIBUTE_IS_MANAGED
constexpr unsigned kMemDevice = 2;   // CU_MEMORYTYPE_DEVICE
using PointerGetAttribute = int (*)(void* data, int attribute, unsigned long long ptr);

std::atomic<PointerGetAttribute> g_get_attr{nullptr};

// How many objects the dynamic linker has loaded so far (dl_iterate_phdr's dlpi_adds, read
// from the first object only: about 0.1 us).
unsigned long long loads_so_far() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;  // stop at once
      },
      &adds);
  return adds;
}

// dlopen(RTLD_NOLOAD) that misses costs ~40 us (it searches the library path), too much
// for every call on host buffers: it is asked again only after a library was loaded.
std::atomic<unsigned long long> g_loads_checked{~0ull};

PointerGetAttribute driver_entry() {
  PointerGetAttribute fn = g_get_attr.load(std::memory_order_acquire);
  if (fn) return fn;
  const unsigned long long loads = loads_so_far();
  if (loads == g_loads_checked.load(std::memory_order_acquire)) return nullptr;
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  g_loads_checked.store(loads, std::memory_order_release);
  if (!h) return nullptr;
  fn = reinterpret_cast<PointerGetAttribute>(dlsym(h, "cuPointerGetAttribute"));
  // The handle stays open: the driver is never unloaded while we may call into it.
  if (fn) g_get_attr.store(fn, std::memory_order_release);
  return fn;
}

}  // namespace

bool cuda_driver_loaded() { return driver_entry() != nullptr; }

namespace {
// Where the brk heap starts (start_brk, field 47 of /proc/self/stat), read once; the most
// an address can be when it is unknown (then no buffer counts as in the heap).
uintptr_t heap_start() {
  uintptr_t start = UINTPTR_MAX;
  if (FILE* f = std::fopen("/proc/self/stat", "r")) {
    char line[1024];
    const size_t n = std::fread(line, 1, sizeof(line) - 1, f);
    std::fclose(f);
    line[n] = '\0';
    // The fields after the command's closing parenthesis (the command may hold spaces) start
    // with field 3, the state.
    if (const char* p = std::strrchr(line, ')')) {
      int field = 2;
      for (++p; *p && field < 47; ++p)
        if (*p == ' ') ++field;
      unsigned long long v = 0;
      if (field == 47 && std::sscanf(p, "%llu", &v) == 1 && v != 0) start = static_cast<uintptr_t>(v);
    }
  }
  return start;
}
}  // namespace

bool in_brk_heap(const void* p, size_t bytes) {
  static const uintptr_t start = heap_start();
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t top = reinterpret_cast<uintptr_t>(sbrk(0));  // glibc: the cached break, no system call
  return a >= start && a < top && bytes <= top - a;
}

MemKind memory_kind(const void* p) {
  if (!p) return MemKind::HOST;
  PointerGetAttribute fn = driver_entry();
  if (!fn) return MemKind::HOST;
  const auto addr = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p));
  unsigned type = 0;
  // Any error (unknown to CUDA, driver not initialised, stub driver) means host memory.
  if (fn(&type, kAttrMemoryType, addr) != 0 || type != kMemDevice) return MemKind::HOST;
  unsigned managed = 0;
  if (fn(&managed, kAttrIsManaged, addr) == 0 && managed) return MemKind::HOST;
  return MemKind::DEVICE;
}

}  // namespace nexar::device
