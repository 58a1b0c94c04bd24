// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "core/log.h"
#include "core/params.h"

namespace nexar::device {

namespace {

std::mutex g_mu;
bool g_tried = false;
Status g_status;
CudaPlugin g_plugin;
std::atomic<const CudaPlugin*> g_loaded{nullptr};

Status unsupported(const std::string& why) {
  return Status(NEXAR_ERR_UNSUPPORTED, "CUDA support is not available: " + why);
}

// Every entry a version-1 table must have.
bool complete(const nexar_cuda_plugin_table_v1& t) {
  const bool runtime = t.last_error && t.init && t.pointer_kind && t.host_alloc && t.host_free && t.device_alloc &&
                       t.device_free && t.stream_create && t.stream_destroy && t.stream_sync && t.memcpy_async &&
                       t.event_create && t.event_destroy && t.event_record && t.event_sync && t.stream_wait_event;
  const bool nccl = !t.has_nccl || (t.nccl_get_unique_id && t.nccl_comm_init && t.nccl_comm_destroy &&
                                    t.nccl_group_start && t.nccl_group_end && t.nccl_allreduce && t.nccl_broadcast &&
                                    t.nccl_reduce && t.nccl_allgather && t.nccl_reduce_scatter && t.nccl_send &&
                                    t.nccl_recv);
  return runtime && nccl;
}

}  // namespace

std::string default_plugin_path() {
  std::string configured = param::NEXAR_CUDA_PLUGIN.get();
  if (!configured.empty()) return configured;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&default_plugin_path), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos) {
      // Installed: <libdir>/nexar/libnexar-cuda.so; in the build tree: next to libnexar.
      std::string installed = self.substr(0, slash + 1) + "nexar/libnexar-cuda.so";
      if (access(installed.c_str(), F_OK) == 0) return installed;
      return self.substr(0, slash + 1) + "libnexar-cuda.so";
    }
  }
  return "libnexar-cuda.so";
}

Status open_plugin(const std::string& path, const nexar_cuda_plugin_table_v1** out) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    return unsupported(strprintf("the CUDA plugin %s could not be loaded (%s); build nexar with the CUDA Toolkit "
                                 "and NCCL, or set NEXAR_CUDA_PLUGIN",
                                 path.c_str(), e ? e : "unknown error"));
  }
  auto entry = reinterpret_cast<nexar_cuda_plugin_entry_fn>(dlsym(h, NEXAR_CUDA_PLUGIN_SYMBOL));
  if (!entry) return unsupported(strprintf("%s has no symbol %s", path.c_str(), NEXAR_CUDA_PLUGIN_SYMBOL));
  const nexar_cuda_plugin_table_v1* t = entry();
  if (!t) return unsupported(strprintf("%s returned no function table", path.c_str()));
  if (t->abi_version != NEXAR_CUDA_PLUGIN_ABI_VERSION || t->struct_size < sizeof(nexar_cuda_plugin_table_v1))
    return unsupported(strprintf("%s has plugin ABI %u (table of %u bytes); this libnexar needs ABI %u (%zu bytes)",
                                 path.c_str(), t->abi_version, t->struct_size, NEXAR_CUDA_PLUGIN_ABI_VERSION,
                                 sizeof(nexar_cuda_plugin_table_v1)));
  if (!complete(*t)) return unsupported(strprintf("%s has an incomplete function table", path.c_str()));
  *out = t;
  return Status::Ok();
}

Status cuda_plugin(int local_rank, const CudaPlugin** out) {
  if (const CudaPlugin* p = g_loaded.load(std::memory_order_acquire)) {
    *out = p;
    return Status::Ok();
  }
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_tried) {
    g_tried = true;
    CudaPlugin p;
    p.path = default_plugin_path();
    g_status = open_plugin(p.path, &p.api);
    if (g_status.ok() && p.api->init(local_rank, &p.device) != 0)
      g_status = unsupported(strprintf("%s: %s", p.path.c_str(), p.api->last_error()));
    if (g_status.ok()) {
      g_plugin = p;
      g_loaded.store(&g_plugin, std::memory_order_release);
      NX_INFO(INIT, "CUDA plugin %s (%s) loaded; using GPU %d", p.path.c_str(), p.api->description, p.device);
    } else {
      NX_WARN(INIT, "%s", g_status.message().c_str());
    }
  }
  if (!g_status.ok()) return g_status;
  *out = &g_plugin;
  return Status::Ok();
}

Status plugin_error(const CudaPlugin& p, const char* what) {
  return Status(NEXAR_ERR_SYSTEM, strprintf("%s: %s", what, p.api->last_error()));
}

}  // namespace nexar::device
