// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The C API's device-buffer contract where CUDA support is missing, run in a world of one
// rank (no launcher). NEXAR_CUDA_PLUGIN points at a path that does not exist (set by
// ctest), so CUDA support cannot be had even on a machine with a GPU. A stand-in driver
// (fake_driver.c, SONAME libcuda.so.1) makes one range look like device memory.
#include <catch.hpp>
#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "nexar/nexar.h"
#include "nexar/nexar.hpp"

namespace {

nexar_comm_t world() {
  static nexar_comm_t w = [] {
    nexar_comm_t c = nullptr;
    REQUIRE(nexar_init(&c) == NEXAR_SUCCESS);
    return c;
  }();
  return w;
}

bool mentions(nexar_comm_t c, const char* what) {
  return std::string(nexar_comm_last_error(c)).find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("host buffers work and no CUDA is loaded for them", "[cuda]") {
  std::vector<int> in = {1, 2, 3}, out(3);
  REQUIRE(nexar_allreduce(in.data(), out.data(), 3, NEXAR_INT32, NEXAR_SUM, world()) == NEXAR_SUCCESS);
  CHECK(out == in);
  CHECK(nexar_comm_sync(world()) == NEXAR_SUCCESS);                   // nothing on a device: no-op
  CHECK(nexar_comm_set_cuda_stream(world(), nullptr) == NEXAR_SUCCESS);  // unsetting needs no CUDA
  CHECK(dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) == nullptr);
  CHECK(dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD) == nullptr);
  // Outside the brk heap the call asks whether the driver is loaded, and learns it is not;
  // the driver loaded later (the next test) is still found: the answer "not loaded" holds
  // only until the dynamic linker loads another object.
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  int* m = static_cast<int*>(map);
  m[0] = 7;
  REQUIRE(nexar_allreduce(m, m + 1, 1, NEXAR_INT32, NEXAR_SUM, world()) == NEXAR_SUCCESS);
  CHECK(m[1] == 7);
  munmap(map, 4096);
}

TEST_CASE("asking for CUDA without the plugin is NEXAR_ERR_UNSUPPORTED with a message", "[cuda]") {
  int fake_stream = 0;
  CHECK(nexar_comm_set_cuda_stream(world(), &fake_stream) == NEXAR_ERR_UNSUPPORTED);
  CHECK(mentions(world(), "CUDA support is not available"));
  CHECK(mentions(world(), "/nonexistent/"));
  void* ev = nullptr;
  CHECK(nexar_cuda_event_create(world(), &ev) == NEXAR_ERR_UNSUPPORTED);
  CHECK(ev == nullptr);
  CHECK(nexar_cuda_event_create(world(), nullptr) == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a device pointer without the plugin is NEXAR_ERR_UNSUPPORTED in every kind of call", "[cuda]") {
  void* drv = dlopen(FAKE_DRIVER, RTLD_NOW | RTLD_GLOBAL);
  REQUIRE(drv);
  REQUIRE(dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) != nullptr);  // found by SONAME
  auto reg = reinterpret_cast<void (*)(const void*, unsigned long)>(dlsym(drv, "fake_cuda_register_device_range"));
  REQUIRE(reg);
  // The stand-in's device memory is a mapping of its own, as the driver's is (never inside
  // the brk heap, which nexar takes for host memory without asking the driver).
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  const std::span<float> dev(static_cast<float*>(map), 64);
  std::fill(dev.begin(), dev.end(), 1.0f);
  std::vector<float> host(64, 2.0f), out(64);
  reg(dev.data(), dev.size() * sizeof(float));

  // Host memory is still host memory with a driver loaded.
  REQUIRE(nexar_allreduce(host.data(), out.data(), 64, NEXAR_FLOAT32, NEXAR_SUM, world()) == NEXAR_SUCCESS);
  CHECK(out[5] == 2.0f);

  CHECK(nexar_allreduce(dev.data(), out.data(), 64, NEXAR_FLOAT32, NEXAR_SUM, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(mentions(world(), "device memory"));
  CHECK(mentions(world(), "allreduce"));
  CHECK(nexar_allreduce(host.data(), dev.data(), 64, NEXAR_FLOAT32, NEXAR_SUM, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(nexar_broadcast(dev.data(), 64, NEXAR_FLOAT32, 0, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(nexar_send(dev.data(), 64, NEXAR_FLOAT32, 0, 1, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(mentions(world(), "send buffer"));
  nexar_request_t req = nullptr;
  CHECK(nexar_irecv(dev.data(), 64, NEXAR_FLOAT32, 0, 1, world(), &req) == NEXAR_ERR_UNSUPPORTED);
  CHECK(req == nullptr);
  CHECK(nexar_iallgather(dev.data(), out.data(), 64, NEXAR_FLOAT32, world(), &req) == NEXAR_ERR_UNSUPPORTED);
  CHECK(req == nullptr);
  // The collectives with a count per rank take host buffers only, with or without CUDA
  // support (they ran their host algorithms on device pointers before).
  const size_t one[1] = {64}, at[1] = {0};
  CHECK(nexar_allgatherv(dev.data(), 64, out.data(), one, at, NEXAR_FLOAT32, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(mentions(world(), "send buffer is CUDA device memory"));
  CHECK(mentions(world(), "allgatherv"));
  CHECK(nexar_gatherv(host.data(), 64, dev.data(), one, at, NEXAR_FLOAT32, 0, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(mentions(world(), "receive buffer is CUDA device memory"));
  CHECK(nexar_scatterv(dev.data(), one, at, out.data(), 64, NEXAR_FLOAT32, 0, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(nexar_alltoallv(host.data(), one, at, dev.data(), one, at, NEXAR_FLOAT32, world()) == NEXAR_ERR_UNSUPPORTED);
  CHECK(nexar_reduce_scatter_v(dev.data(), out.data(), one, NEXAR_FLOAT32, NEXAR_SUM, world()) ==
        NEXAR_ERR_UNSUPPORTED);
  CHECK(nexar_ialltoallv(dev.data(), one, at, out.data(), one, at, NEXAR_FLOAT32, world(), &req) ==
        NEXAR_ERR_UNSUPPORTED);
  CHECK(req == nullptr);
  CHECK(nexar_allgatherv(host.data(), 64, out.data(), one, at, NEXAR_FLOAT32, world()) == NEXAR_SUCCESS);
  CHECK(dev[0] == 1.0f);  // untouched
  // The communicator stays usable after the refusal.
  REQUIRE(nexar_allreduce(host.data(), out.data(), 64, NEXAR_FLOAT32, NEXAR_MAX, world()) == NEXAR_SUCCESS);
  CHECK(out[63] == 2.0f);
  CHECK(nexar_barrier(world()) == NEXAR_SUCCESS);
  reg(nullptr, 0);
  munmap(map, 4096);
}

TEST_CASE("the C++ stream and event operations throw NEXAR_ERR_UNSUPPORTED without CUDA support", "[cuda]") {
  nexar_comm_t d = nullptr;
  REQUIRE(nexar_comm_dup(world(), &d) == NEXAR_SUCCESS);
  nexar::Communicator c(d);
  c.sync();  // no device work: nothing to wait for
  c.sync_comm_stream();
  try {
    (void)c.create_event();
    FAIL("create_event without CUDA support did not throw");
  } catch (const nexar::Error& e) {
    CHECK(e.code() == NEXAR_ERR_UNSUPPORTED);
    CHECK(std::string(e.what()).find("CUDA support is not available") != std::string::npos);
  }
  CHECK_THROWS_AS(c.set_cuda_stream(0x1234), nexar::Error);
  CHECK_THROWS_AS(c.record_on_stream(0x10, 0x20), nexar::Error);
  CHECK_THROWS_AS(c.comm_stream_wait_event(0x10), nexar::Error);
  c.barrier();
}

TEST_CASE("the world is destroyed cleanly after device-buffer refusals", "[cuda]") {
  CHECK(nexar_comm_destroy(world()) == NEXAR_SUCCESS);
}
