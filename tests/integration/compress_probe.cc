// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the compressed allreduce tests: `compress_probe` under nexrun.
// For top-k and random-k at ratios 0.01, 0.1, 0.5 over three steps of error feedback,
// checks the accounting across ranks exactly (integer data: recvbuf plus the sum of every
// rank's new residual equals the sum of every rank's send plus old residual), that every
// rank got the same bits, and what each rank kept; ratio 1 against nexar_allreduce's bits
// (float32 and float16); and ranks passing different seeds fail with NEXAR_ERR_MISMATCH.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "nexar/nexar.h"
#include "probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

int g_size = 1;

// Rank r's send at step s: small integers, different per rank, step and element.
float input(int r, int s, size_t i) {
  return static_cast<float>(static_cast<int>((i * 2654435761u + static_cast<unsigned>(r) * 40503u + static_cast<unsigned>(s) * 9973u) % 2001u) - 1000);
}

std::vector<double> sum_over_ranks(const std::vector<float>& v) {
  std::vector<double> d(v.begin(), v.end());
  PROBE_OK(nexar_allreduce(d.data(), d.data(), d.size(), NEXAR_FLOAT64, NEXAR_SUM, g_world));
  return d;
}

void accounting(nexar_compress_method_t method, double ratio) {
  const size_t n = 1000;
  std::vector<float> residual(n, 0), recv(n), send(n);
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < n; ++i) send[i] = input(g_rank, step, i);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = send[i] + residual[i];
    const std::vector<double> total = sum_over_ranks(v);
    const nexar_compress_t spec{method, ratio, 77u + static_cast<uint64_t>(step)};
    PROBE_OK(nexar_allreduce_compressed(send.data(), recv.data(), n, NEXAR_FLOAT32, &spec, residual.data(), g_world));
    // What this rank kept is v where it did not contribute, zero where it did.
    size_t kept_zero = 0;
    for (size_t i = 0; i < n; ++i) {
      PROBE_CHECK(residual[i] == 0 || residual[i] == v[i]);
      kept_zero += residual[i] == 0 && v[i] != 0;
    }
    const size_t k = static_cast<size_t>(std::ceil(ratio * n));
    PROBE_CHECK(kept_zero <= k);
    if (method == NEXAR_COMPRESS_TOPK) {  // nothing kept is larger than anything sent
      float smallest_sent = INFINITY, largest_kept = 0;
      for (size_t i = 0; i < n; ++i) {
        if (residual[i] != 0) largest_kept = std::max(largest_kept, std::fabs(residual[i]));
        else if (v[i] != 0) smallest_sent = std::min(smallest_sent, std::fabs(v[i]));  // a zero may be kept or sent
      }
      PROBE_CHECK(largest_kept <= smallest_sent);
    }
    // Nothing lost or counted twice.
    const std::vector<double> kept = sum_over_ranks(residual);
    for (size_t i = 0; i < n; ++i)
      if (recv[i] + kept[i] != total[i]) {
        std::fprintf(stderr, "rank %d: element %zu: %g received + %g kept != %g sent (step %d, ratio %g)\n", g_rank, i,
                     recv[i], kept[i], total[i], step, ratio);
        std::exit(1);
      }
    // Every rank got the same bits.
    std::vector<float> lo = recv, hi = recv;
    PROBE_OK(nexar_allreduce(recv.data(), lo.data(), n, NEXAR_FLOAT32, NEXAR_MIN, g_world));
    PROBE_OK(nexar_allreduce(recv.data(), hi.data(), n, NEXAR_FLOAT32, NEXAR_MAX, g_world));
    PROBE_CHECK(lo == recv && hi == recv);
  }
}

template <class T>
void ratio_one(nexar_dtype_t dtype, T (*make)(float)) {
  const size_t n = 4099;
  std::vector<T> send(n), a(n), b(n), residual(n, make(0.0f));
  for (size_t i = 0; i < n; ++i) send[i] = make(std::sin(static_cast<float>(i) * 0.37f + static_cast<float>(g_rank)) * 3.1f);
  PROBE_OK(nexar_allreduce(send.data(), a.data(), n, dtype, NEXAR_SUM, g_world));
  for (auto method : {NEXAR_COMPRESS_TOPK, NEXAR_COMPRESS_RANDOMK}) {
    const nexar_compress_t spec{method, 1.0, 5};
    PROBE_OK(nexar_allreduce_compressed(send.data(), b.data(), n, dtype, &spec, residual.data(), g_world));
    PROBE_CHECK(std::memcmp(a.data(), b.data(), n * sizeof(T)) == 0);
    for (const T& r : residual) PROBE_CHECK(std::memcmp(&r, &residual[0], sizeof(T)) == 0);
  }
}

float as_float(float f) { return f; }
uint16_t as_half(float f) {  // IEEE binary16, round to nearest even (finite, normal range here)
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return static_cast<uint16_t>(sign);
  uint32_t mant = x & 0x7fffffu;
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(h);
}

void mismatch() {
  std::vector<float> send(100, 1.0f), recv(100), residual(100, 0);
  const nexar_compress_t spec{NEXAR_COMPRESS_RANDOMK, 0.1, g_rank == 0 ? 1u : 2u};
  const nexar_result_t r = nexar_allreduce_compressed(send.data(), recv.data(), 100, NEXAR_FLOAT32, &spec, residual.data(), g_world);
  PROBE_CHECK(r == NEXAR_ERR_MISMATCH);
  PROBE_CHECK(std::strstr(nexar_comm_last_error(g_world), "seed") != nullptr);
  for (float x : residual) PROBE_CHECK(x == 0);  // untouched by a failed call
}

void bad_arguments() {
  float s = 1, r = 0, res = 0;
  nexar_compress_t spec{NEXAR_COMPRESS_TOPK, 0.0, 0};
  PROBE_CHECK(nexar_allreduce_compressed(&s, &r, 1, NEXAR_FLOAT32, &spec, &res, g_world) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(std::strstr(nexar_comm_last_error(g_world), "ratio") != nullptr);
  spec.ratio = 0.5;
  int32_t i = 1, o = 0, ires = 0;
  PROBE_CHECK(nexar_allreduce_compressed(&i, &o, 1, NEXAR_INT32, &spec, &ires, g_world) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(nexar_allreduce_compressed(&s, &r, 1, NEXAR_FLOAT32, &spec, nullptr, g_world) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(nexar_allreduce_compressed(&s, &r, 1, NEXAR_FLOAT32, nullptr, &res, g_world) == NEXAR_ERR_INVALID_ARGUMENT);
}

}  // namespace

int main() {
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  bad_arguments();
  for (auto method : {NEXAR_COMPRESS_TOPK, NEXAR_COMPRESS_RANDOMK})
    for (double ratio : {0.01, 0.1, 0.5}) accounting(method, ratio);
  ratio_one<float>(NEXAR_FLOAT32, as_float);
  ratio_one<uint16_t>(NEXAR_FLOAT16, as_half);
  std::printf("rank %d: compressed ok\n", g_rank);
  std::fflush(stdout);
  mismatch();  // breaks the world (as any collective mismatch does)
  std::printf("rank %d: mismatch ok\n", g_rank);
  return 0;
}
