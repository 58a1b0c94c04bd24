// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Device buffers end to end on a machine with a GPU; skipped, visibly, without one (exit
// code 77, which ctest reports as skipped). Every scenario runs cuda_ranks under nexrun.
#include <catch.hpp>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "launcher/nexrun_process.h"

using launcher_test::count_of;
using launcher_test::run_nexrun;
using namespace std::chrono_literals;

namespace {

// Whether this machine has a usable CUDA device, asked of the driver directly (dlopen:
// the test itself links no CUDA).
bool have_gpu() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
  auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(h, "cuInit"));
  auto count = reinterpret_cast<int (*)(int*)>(dlsym(h, "cuDeviceGetCount"));
  int n = 0;
  return init && count && init(0) == 0 && count(&n) == 0 && n > 0;
}

void skip_without_gpu() {
  if (have_gpu()) return;
  std::printf("SKIPPED: no CUDA device\n");
  std::fflush(stdout);
  std::_Exit(77);
}

void run_ranks(int np, std::vector<std::string> flags, const std::vector<std::string>& env) {
  std::vector<std::string> args = {"-np", std::to_string(np), CUDA_RANKS};
  args.insert(args.end(), flags.begin(), flags.end());
  std::string out, err;
  auto end = run_nexrun(args, &out, &err, 240s, env);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(end.exit_code == 0);
  REQUIRE(count_of(out, "cuda ok") == static_cast<size_t>(np));
}

}  // namespace

TEST_CASE("device buffers staged through shared memory, two ranks on one GPU", "[cuda][gpu]") {
  skip_without_gpu();
  run_ranks(2, {}, {"NEXAR_NCCL=0"});
}

TEST_CASE("device buffers staged through QUIC, two ranks on one GPU", "[cuda][gpu]") {
  skip_without_gpu();
  run_ranks(2, {}, {"NEXAR_NCCL=0", "NEXAR_TRANSPORT=quic"});
}

TEST_CASE("NCCL communicators of one rank and the inter-host path (each rank its own host)", "[cuda][gpu]") {
  skip_without_gpu();
  run_ranks(2, {"--own-host"}, {"NEXAR_NCCL_SMALL_BYTES=4096", "NEXAR_CUDA_CHUNK_BYTES=1048576"});
  run_ranks(3, {"--own-host", "--stream"}, {});
}

TEST_CASE("a single rank: NCCL communicator of one, with a stream", "[cuda][gpu]") {
  skip_without_gpu();
  run_ranks(1, {"--stream"}, {});
}
