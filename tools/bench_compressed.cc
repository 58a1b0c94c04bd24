// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bench_compressed.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "bench_method.h"
#include "collectives/compress_codec.h"
#include "collectives/compress_select.h"

namespace nexar_bench {
namespace {

void ok(nexar_result_t r, nexar_comm_t world, const char* what) {
  if (r == NEXAR_SUCCESS) return;
  std::fprintf(stderr, "nexar-bench: %s: %s: %s\n", what, nexar_result_string(r), nexar_comm_last_error(world));
  std::exit(1);
}

// The median over K timed runs of fn (the slowest rank's time per run), K from its cost.
double time_median(nexar_comm_t world, const std::function<void()>& fn, double target_s, long iters, long warmup) {
  double t0 = bench_now();
  for (int i = 0; i < 2; ++i) fn();
  double cost = (bench_now() - t0) / 2;
  ok(nexar_allreduce(&cost, &cost, 1, NEXAR_FLOAT64, NEXAR_MAX, world), world, "cost agreement");
  const long k = bench_iterations(target_s, cost, iters);
  for (long i = bench_warmup(target_s, cost, k, warmup); i > 0; --i) fn();
  std::vector<double> samples(static_cast<size_t>(k));
  for (long i = 0; i < k; ++i) {
    ok(nexar_barrier(world), world, "barrier");
    const double a = bench_now();
    fn();
    samples[static_cast<size_t>(i)] = bench_now() - a;
  }
  ok(nexar_allreduce(samples.data(), samples.data(), samples.size(), NEXAR_FLOAT64, NEXAR_MAX, world), world, "samples");
  return bench_median(samples.data(), k);
}

}  // namespace

void bench_compressed(nexar_comm_t world, int rank, int nranks, const std::vector<size_t>& sizes, double target_s,
                      long iters, long warmup) {
  const double p = nranks;
  if (rank == 0) {
    std::printf("# nexar_allreduce_compressed vs nexar_allreduce, float32 sum, %d ranks\n", nranks);
    std::printf("# sent/rank: payload bytes each rank sends (compressed: (P-1) x its packed contribution, one\n");
    std::printf("# allgather; allreduce: the bandwidth-optimal 2(P-1)/P x size)\n");
    std::printf("%12s %10s %7s %14s %12s %10s\n", "size(B)", "method", "ratio", "sent/rank(B)", "time(us)", "vs_allred");
  }
  for (size_t bytes : sizes) {
    const size_t n = std::max<size_t>(1, bytes / sizeof(float));
    std::vector<float> send(n), recv(n), residual(n, 0);
    for (size_t i = 0; i < n; ++i) send[i] = std::sin(static_cast<float>(i) * 0.01f + static_cast<float>(rank));
    const double base = time_median(
        world, [&] { ok(nexar_allreduce(send.data(), recv.data(), n, NEXAR_FLOAT32, NEXAR_SUM, world), world, "allreduce"); },
        target_s, iters, warmup);
    if (rank == 0)
      std::printf("%12zu %10s %7s %14.0f %12.2f %10.2f\n", n * sizeof(float), "allreduce", "-",
                  2 * (p - 1) / p * static_cast<double>(n * sizeof(float)), base * 1e6, 1.0);
    for (auto method : {NEXAR_COMPRESS_TOPK, NEXAR_COMPRESS_RANDOMK}) {
      for (double ratio : {0.01, 0.1, 1.0}) {
        nexar_compress_t spec{method, ratio, 1};
        const double t = time_median(
            world,
            [&] {
              ++spec.seed;  // a new draw per call, as random-k is meant to be used
              ok(nexar_allreduce_compressed(send.data(), recv.data(), n, NEXAR_FLOAT32, &spec, residual.data(), world),
                 world, "allreduce_compressed");
            },
            target_s, iters, warmup);
        const size_t k = nexar::coll::compress::contributed(ratio, n);
        const double packed = static_cast<double>(nexar::coll::compress::packed_bytes(method, k, NEXAR_FLOAT32));
        const double sent = k == n ? 2 * (p - 1) / p * static_cast<double>(n * sizeof(float)) : (p - 1) * packed;
        if (rank == 0)
          std::printf("%12zu %10s %7.2f %14.0f %12.2f %10.2f\n", n * sizeof(float),
                      method == NEXAR_COMPRESS_TOPK ? "top-k" : "random-k", ratio, sent, t * 1e6, t / base);
      }
    }
    std::fflush(stdout);
  }
}

}  // namespace nexar_bench
