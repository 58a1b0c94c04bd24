// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The device layer without a GPU: detection when no CUDA driver is loaded, the CPU adapter,
// and the plugin's loading and ABI checks (the real libnexar-cuda.so when it was built).
#include <catch.hpp>
#include <dlfcn.h>

#include <cstring>
#include <vector>

#include "device/adapter.h"
#include "device/cuda_detect.h"
#include "device/plugin_loader.h"

using namespace nexar::device;

TEST_CASE("without the CUDA driver loaded every pointer is host memory", "[cuda]") {
  REQUIRE_FALSE(cuda_driver_loaded());  // this test never loads libcuda.so.1
  std::vector<float> v(16);
  CHECK(memory_kind(v.data()) == MemKind::HOST);
  CHECK(memory_kind(nullptr) == MemKind::HOST);
  CHECK(memory_kind(reinterpret_cast<void*>(0x7f0000001000)) == MemKind::HOST);
}

TEST_CASE("the CPU adapter copies and allows host offload", "[cuda]") {
  CpuAdapter& a = cpu_adapter();
  CHECK(a.supports_host_offload());
  CHECK(std::strcmp(a.name(), "cpu") == 0);
  std::vector<int> src = {1, 2, 3, 4}, host(4), back(4);
  REQUIRE(a.stage_for_send(src.data(), host.data(), 16, nullptr).ok());
  REQUIRE(a.receive_to_device(host.data(), back.data(), 16, nullptr).ok());
  REQUIRE(a.sync(nullptr).ok());
  CHECK(back == src);
}

TEST_CASE("a missing plugin or one without the entry point is NEXAR_ERR_UNSUPPORTED, named", "[cuda]") {
  const nexar_cuda_plugin_table_v1* t = nullptr;
  nexar::Status st = open_plugin("/nonexistent/libnexar-cuda.so", &t);
  CHECK(st.code() == NEXAR_ERR_UNSUPPORTED);
  CHECK(st.message().find("/nonexistent/libnexar-cuda.so") != std::string::npos);
  CHECK(st.message().find("CUDA support is not available") != std::string::npos);
  st = open_plugin("libm.so.6", &t);
  CHECK(st.code() == NEXAR_ERR_UNSUPPORTED);
  CHECK(st.message().find("nexar_cuda_plugin_v1") != std::string::npos);
  CHECK(t == nullptr);
}

TEST_CASE("the default plugin path is next to the library holding the loader", "[cuda]") {
  std::string p = default_plugin_path();
  CHECK(p.size() > std::strlen("libnexar-cuda.so"));
  CHECK(p.substr(p.size() - std::strlen("/libnexar-cuda.so")) == "/libnexar-cuda.so");
}

#ifdef NEXAR_TEST_CUDA_PLUGIN
TEST_CASE("the built plugin loads, has ABI 1 and a complete table, and names a missing GPU", "[cuda]") {
  const nexar_cuda_plugin_table_v1* t = nullptr;
  nexar::Status st = open_plugin(NEXAR_TEST_CUDA_PLUGIN, &t);
  INFO(st.to_string());
  REQUIRE(st.ok());
  CHECK(t->abi_version == NEXAR_CUDA_PLUGIN_ABI_VERSION);
  CHECK(t->struct_size == sizeof(nexar_cuda_plugin_table_v1));
  CHECK(t->has_nccl == 1);
  CHECK(std::string(t->description).find("NCCL") != std::string::npos);
  CHECK(std::string(t->last_error()).empty());
  void* h = dlopen(NEXAR_TEST_CUDA_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h);  // loaded once, stays loaded
  dlclose(h);
  int device = -1;
  if (t->init(0, &device) == 0) {
    CHECK(device >= 0);  // a machine with a GPU
  } else {
    std::string why = t->last_error();  // no GPU or no driver here: said so
    INFO(why);
    CHECK(why.find("cuda") != std::string::npos);
    WARN("no usable CUDA device: " << why);
  }
}
#endif
