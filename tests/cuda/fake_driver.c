// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* A stand-in for the CUDA driver with the driver's SONAME (libcuda.so.1), for machines
 * without a GPU: it answers cuPointerGetAttribute the way the real driver does for device
 * memory, for one address range the test registers, and "not a CUDA pointer" otherwise.
 * It lets the test drive libnexar's real detection and its "device pointer, no plugin"
 * error path; it implements nothing else of CUDA. */
#include <stdint.h>

static uintptr_t g_lo, g_hi;

__attribute__((visibility("default"))) void fake_cuda_register_device_range(const void *p, unsigned long bytes) {
  g_lo = (uintptr_t)p;
  g_hi = g_lo + bytes;
}

__attribute__((visibility("default"))) int cuPointerGetAttribute(void *data, int attribute, unsigned long long ptr) {
  if (ptr < g_lo || ptr >= g_hi) return 1; /* CUDA_ERROR_INVALID_VALUE */
  if (attribute == 2) *(unsigned *)data = 2; /* MEMORY_TYPE: DEVICE */
  else if (attribute == 8) *(unsigned *)data = 0; /* IS_MANAGED: no */
  else return 1;
  return 0;
}
