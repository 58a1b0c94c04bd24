// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the GPU tests (started by nexrun): device buffers through point to
// point and every collective the device layer routes, each result checked against what
// the host computes. Prints "rank R: <scenario> ok" or names the first wrong element.
//   cuda_ranks [--own-host] [--stream]
// --own-host makes each rank its own host (NEXAR_HOST_ID) so that the NCCL communicators
// have one rank and the inter-host path runs; --stream sets a CUDA stream on the world.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nexar/nexar.h"

namespace {

int g_rank = 0, g_size = 1;
nexar_comm_t g_world = nullptr;

void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "rank %d: %s: %s\n", g_rank, what, detail.c_str());
  std::exit(1);
}
void ok_or_die(nexar_result_t r, const char* call) {
  if (r != NEXAR_SUCCESS) die(call, std::string(nexar_result_string(r)) + ": " + nexar_comm_last_error(g_world));
}
void cuda_or_die(cudaError_t e, const char* call) {
  if (e != cudaSuccess) die(call, cudaGetErrorString(e));
}

struct Dev {
  float* p = nullptr;
  size_t n = 0;
  explicit Dev(size_t count) : n(count) { cuda_or_die(cudaMalloc(reinterpret_cast<void**>(&p), (n ? n : 1) * sizeof(float)), "cudaMalloc"); }
  ~Dev() { cudaFree(p); }
  void put(const std::vector<float>& v) { cuda_or_die(cudaMemcpy(p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice), "H2D"); }
  std::vector<float> get(size_t count) const {
    std::vector<float> v(count);
    cuda_or_die(cudaMemcpy(v.data(), p, count * sizeof(float), cudaMemcpyDeviceToHost), "D2H");
    return v;
  }
};

// Rank r's element i: small integers, exact in float32 sums.
float val(int r, size_t i) { return static_cast<float>((r + 1) * 1000 + static_cast<int>(i % 997)); }

void expect(const std::vector<float>& got, const std::vector<float>& want, const char* what, size_t n) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      die(what, "count " + std::to_string(n) + " element " + std::to_string(i) + ": got " + std::to_string(got[i]) +
                    ", want " + std::to_string(want[i]));
}

std::vector<float> mine(size_t n, int r = g_rank) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = val(r, i);
  return v;
}

void check_collectives(size_t n) {
  const size_t N = static_cast<size_t>(g_size);
  Dev a(n * N), b(n * N);
  // allreduce, out of place and in place
  std::vector<float> sum(n, 0.0f);
  for (int r = 0; r < g_size; ++r)
    for (size_t i = 0; i < n; ++i) sum[i] += val(r, i);
  a.put(mine(n));
  ok_or_die(nexar_allreduce(a.p, b.p, n, NEXAR_FLOAT32, NEXAR_SUM, g_world), "nexar_allreduce");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  expect(b.get(n), sum, "allreduce", n);
  ok_or_die(nexar_allreduce(a.p, a.p, n, NEXAR_FLOAT32, NEXAR_SUM, g_world), "nexar_allreduce in place");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  expect(a.get(n), sum, "allreduce in place", n);
  // broadcast from the last rank
  a.put(mine(n));
  ok_or_die(nexar_broadcast(a.p, n, NEXAR_FLOAT32, g_size - 1, g_world), "nexar_broadcast");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  expect(a.get(n), mine(n, g_size - 1), "broadcast", n);
  // reduce (MAX) to the last rank
  a.put(mine(n));
  ok_or_die(nexar_reduce(a.p, b.p, n, NEXAR_FLOAT32, NEXAR_MAX, g_size - 1, g_world), "nexar_reduce");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  if (g_rank == g_size - 1) expect(b.get(n), mine(n, g_size - 1), "reduce", n);
  // allgather
  a.put(mine(n));
  ok_or_die(nexar_allgather(a.p, b.p, n, NEXAR_FLOAT32, g_world), "nexar_allgather");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  std::vector<float> all;
  for (int r = 0; r < g_size; ++r) {
    auto v = mine(n, r);
    all.insert(all.end(), v.begin(), v.end());
  }
  expect(b.get(n * N), all, "allgather", n);
  // reduce_scatter: block r of the sum of everyone's size*n inputs
  std::vector<float> in(n * N);
  for (size_t i = 0; i < n * N; ++i) in[i] = val(g_rank, i);
  a.put(in);
  ok_or_die(nexar_reduce_scatter(a.p, b.p, n, NEXAR_FLOAT32, NEXAR_SUM, g_world), "nexar_reduce_scatter");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  std::vector<float> block(n, 0.0f);
  for (int r = 0; r < g_size; ++r)
    for (size_t i = 0; i < n; ++i) block[i] += val(r, static_cast<size_t>(g_rank) * n + i);
  expect(b.get(n), block, "reduce_scatter", n);
  // a non-blocking one, and a barrier
  a.put(mine(n));
  nexar_request_t req = nullptr;
  ok_or_die(nexar_iallreduce(a.p, b.p, n, NEXAR_FLOAT32, NEXAR_SUM, g_world, &req), "nexar_iallreduce");
  ok_or_die(nexar_wait(req), "nexar_wait");
  ok_or_die(nexar_comm_sync(g_world), "nexar_comm_sync");
  expect(b.get(n), sum, "iallreduce", n);
  ok_or_die(nexar_barrier(g_world), "nexar_barrier");
}

void check_p2p(size_t n) {
  Dev a(n), b(n);
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  a.put(mine(n));
  nexar_request_t req = nullptr;
  ok_or_die(nexar_irecv(b.p, n, NEXAR_FLOAT32, prev, 7, g_world, &req), "nexar_irecv");
  ok_or_die(nexar_send(a.p, n, NEXAR_FLOAT32, next, 7, g_world), "nexar_send");
  ok_or_die(nexar_wait(req), "nexar_wait");
  expect(b.get(n), mine(n, prev), "ring of device buffers", n);
  // device to host and host to device in one exchange
  std::vector<float> host(n);
  ok_or_die(nexar_irecv(host.data(), n, NEXAR_FLOAT32, prev, 8, g_world, &req), "nexar_irecv host");
  ok_or_die(nexar_send(a.p, n, NEXAR_FLOAT32, next, 8, g_world), "nexar_send device");
  ok_or_die(nexar_wait(req), "nexar_wait");
  expect(host, mine(n, prev), "device to host", n);
}

}  // namespace

int main(int argc, char** argv) {
  bool own_host = false, stream = false;
  for (int i = 1; i < argc; ++i) {
    own_host |= std::strcmp(argv[i], "--own-host") == 0;
    stream |= std::strcmp(argv[i], "--stream") == 0;
  }
  if (own_host) {  // before nexar_init reads its parameters
    const char* r = std::getenv("NEXAR_RANK");
    setenv("NEXAR_HOST_ID", (std::string("cuda-test-host-") + (r ? r : "0")).c_str(), 1);
  }
  cudaStream_t s = nullptr;
  cuda_or_die(cudaFree(nullptr), "cudaFree(0)");  // a CUDA context before nexar: the driver is loaded
  ok_or_die(nexar_init(&g_world), "nexar_init");
  ok_or_die(nexar_comm_rank(g_world, &g_rank), "nexar_comm_rank");
  ok_or_die(nexar_comm_size(g_world, &g_size), "nexar_comm_size");
  if (stream) {
    cuda_or_die(cudaStreamCreate(&s), "cudaStreamCreate");
    ok_or_die(nexar_comm_set_cuda_stream(g_world, s), "nexar_comm_set_cuda_stream");
  }
  for (size_t n : {size_t(1), size_t(1000), size_t(3 << 20)}) {  // 4 B, 4 KB, 12 MiB (chunked, large path)
    check_p2p(n);
    check_collectives(n);
  }
  std::printf("rank %d: cuda ok\n", g_rank);
  std::fflush(stdout);
  ok_or_die(nexar_comm_destroy(g_world), "nexar_comm_destroy");
  if (s) cudaStreamDestroy(s);
  return 0;
}
