// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The CUDA runtime half of the plugin: device choice, pointer kinds, pinned and device
// memory, streams, events and asynchronous copies. Host-only C++ against libcudart.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "device/plugin_abi.h"
#include "plugin_error.h"

namespace nexar_cuda {

namespace {
thread_local std::string t_error;
std::atomic<int> g_device{-1};

// Whether the calling thread has a CUDA context current: the program chose a device.
// The driver is loaded whenever the plugin is (libnexar checks), so its symbol is there.
bool context_current() {
  using Fn = int (*)(void**);
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "cuCtxGetCurrent"));
  void* ctx = nullptr;
  return fn && fn(&ctx) == 0 && ctx != nullptr;
}
}  // namespace

int fail(const char* what, const std::string& detail) {
  t_error = std::string(what) + ": " + detail;
  return -1;
}
const char* last_error() { return t_error.c_str(); }

int check_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError();  // clear the sticky-free error so later calls are not blamed
  return fail(what, std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")");
}

int chosen_device() { return g_device.load(); }

int use_device() {
  const int d = g_device.load();
  if (d < 0) return fail("CUDA plugin", "init() was not called");
  return check_cuda(cudaSetDevice(d), "cudaSetDevice");
}

namespace {

int init(int local_rank, int* device) {
  int count = 0;
  if (check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount")) return -1;
  if (count <= 0) return fail("cudaGetDeviceCount", "no CUDA device");
  int d = 0;
  if (context_current() || std::getenv("CUDA_VISIBLE_DEVICES")) {
    if (check_cuda(cudaGetDevice(&d), "cudaGetDevice")) return -1;
  } else {
    d = (local_rank < 0 ? 0 : local_rank) % count;
  }
  int expected = -1;
  g_device.compare_exchange_strong(expected, d);  // the first choice sticks
  *device = g_device.load();
  return use_device();
}

int pointer_kind(const void* p, int* is_device, int* device) {
  cudaPointerAttributes a{};
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  *is_device = 0;
  *device = -1;
  if (e == cudaErrorInvalidValue) {  // memory CUDA does not know: plain host memory
    (void)cudaGetLastError();
    return 0;
  }
  if (check_cuda(e, "cudaPointerGetAttributes")) return -1;
  *is_device = a.type == cudaMemoryTypeDevice ? 1 : 0;
  *device = a.device;
  return 0;
}

int host_alloc(size_t bytes, void** out) {
  if (use_device()) return -1;
  return check_cuda(cudaHostAlloc(out, bytes, cudaHostAllocPortable), "cudaHostAlloc");
}
int host_free(void* p) { return check_cuda(cudaFreeHost(p), "cudaFreeHost"); }
int device_alloc(size_t bytes, void** out) {
  if (use_device()) return -1;
  return check_cuda(cudaMalloc(out, bytes), "cudaMalloc");
}
int device_free(void* p) {
  if (use_device()) return -1;
  return check_cuda(cudaFree(p), "cudaFree");
}

int stream_create(void** s) {
  if (use_device()) return -1;
  return check_cuda(cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t*>(s), cudaStreamNonBlocking),
                    "cudaStreamCreateWithFlags");
}
int stream_destroy(void* s) { return check_cuda(cudaStreamDestroy(static_cast<cudaStream_t>(s)), "cudaStreamDestroy"); }
int stream_sync(void* s) {
  if (use_device()) return -1;
  return check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(s)), "cudaStreamSynchronize");
}

int memcpy_async(void* dst, const void* src, size_t bytes, int kind, void* s) {
  if (use_device()) return -1;
  cudaMemcpyKind k = kind == NEXAR_COPY_D2H   ? cudaMemcpyDeviceToHost
                     : kind == NEXAR_COPY_H2D ? cudaMemcpyHostToDevice
                                              : cudaMemcpyDeviceToDevice;
  return check_cuda(cudaMemcpyAsync(dst, src, bytes, k, static_cast<cudaStream_t>(s)), "cudaMemcpyAsync");
}

int event_create(void** ev) {
  if (use_device()) return -1;
  return check_cuda(cudaEventCreateWithFlags(reinterpret_cast<cudaEvent_t*>(ev), cudaEventDisableTiming),
                    "cudaEventCreateWithFlags");
}
int event_destroy(void* ev) { return check_cuda(cudaEventDestroy(static_cast<cudaEvent_t>(ev)), "cudaEventDestroy"); }
int event_record(void* ev, void* s) {
  if (use_device()) return -1;
  return check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(ev), static_cast<cudaStream_t>(s)), "cudaEventRecord");
}
int event_sync(void* ev) { return check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(ev)), "cudaEventSynchronize"); }
int stream_wait_event(void* s, void* ev) {
  if (use_device()) return -1;
  return check_cuda(cudaStreamWaitEvent(static_cast<cudaStream_t>(s), static_cast<cudaEvent_t>(ev), 0),
                    "cudaStreamWaitEvent");
}

}  // namespace

// Fills the runtime entries of the table (nccl_ops.cc fills the rest).
void fill_runtime_entries(nexar_cuda_plugin_table_v1* t) {
  t->last_error = last_error;
  t->init = init;
  t->pointer_kind = pointer_kind;
  t->host_alloc = host_alloc;
  t->host_free = host_free;
  t->device_alloc = device_alloc;
  t->device_free = device_free;
  t->stream_create = stream_create;
  t->stream_destroy = stream_destroy;
  t->stream_sync = stream_sync;
  t->memcpy_async = memcpy_async;
  t->event_create = event_create;
  t->event_destroy = event_destroy;
  t->event_record = event_record;
  t->event_sync = event_sync;
  t->stream_wait_event = stream_wait_event;
}

}  // namespace nexar_cuda
