// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Is a buffer device memory? Answered without linking or loading CUDA: a program that has
// device pointers has the CUDA driver (libcuda.so.1) loaded, so when dlopen(RTLD_NOLOAD)
// does not find it, every pointer is host memory. When it is loaded, the driver's
// cuPointerGetAttribute (looked up in the loaded driver, never linked) classifies the
// pointer, so a device pointer is recognised even when the plugin is missing.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace nexar::device {

enum class MemKind { HOST, DEVICE };

// Whether libcuda.so.1 is in this process now (checked on every call: a program may load
// CUDA after nexar_init; once found, remembered).
bool cuda_driver_loaded();

// Whether [p, p + bytes) lies in the process's brk heap (malloc's main arena): host memory
// whatever the driver would say, since device memory lives in ranges the driver maps,
// never inside the heap. Two compares, where cuda_driver_loaded asks the dynamic linker
// (~0.1 us), so a call on small malloc'd buffers skips that question.
bool in_brk_heap(const void* p, size_t bytes);
// Whether the brk heap still reaches hi (its break is at or past it): a span that was in
// the heap stays in it while it does (the heap's start never moves). One read of glibc's
// cached break, no system call.
inline bool brk_heap_reaches(uintptr_t hi) { return hi <= reinterpret_cast<uintptr_t>(sbrk(0)); }

// HOST for null, for any pointer when the driver is absent, for host memory (pinned or
// not) and for managed memory (the CPU may access it); DEVICE for device memory.
MemKind memory_kind(const void* p);

}  // namespace nexar::device
