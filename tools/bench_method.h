// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/*
 * The measurement method of ../shared/design/BENCHMARKS.md and the output table, shared by
 * nexar-bench (C++) and mpi-bench (C) so both measure and print exactly alike.
 *
 *  - bench_iterations: K = target / cost clamped to [5, 20000] (or the count asked for).
 *  - bench_median: median of the K samples (each the max over ranks of t1 - t0).
 *  - bench_busbw_factor: nccl-tests' bus bandwidth factors.
 *  - bench_print_header / bench_print_row: the table (rank 0 prints it).
 * Header-only, C99 and C++.
 */
#ifndef NEXAR_TOOLS_BENCH_METHOD_H
#define NEXAR_TOOLS_BENCH_METHOD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Timed iterations: `fixed` when > 0, else target / cost clamped to [5, 20000]. */
static inline long bench_iterations(double target_s, double cost_s, long fixed) {
  if (fixed > 0) return fixed;
  double k = cost_s > 0 ? target_s / cost_s : 20000.0;
  if (k < 5) k = 5;
  if (k > 20000) k = 20000;
  return (long)k;
}

/* Warm-up iterations after the 2 that estimate the cost: about 10% of the target time
 * (at least 1, at most the timed count), or `fixed` when >= 0. */
static inline long bench_warmup(double target_s, double cost_s, long timed, long fixed) {
  if (fixed >= 0) return fixed;
  double w = cost_s > 0 ? 0.1 * target_s / cost_s : 1.0;
  if (w < 1) w = 1;
  if (w > (double)timed) w = (double)timed;
  return (long)w;
}

static inline int bench_cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Median of n samples (sorts them in place). */
static inline double bench_median(double* s, long n) {
  if (n <= 0) return 0;
  qsort(s, (size_t)n, sizeof *s, bench_cmp_double);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The q-quantile (0..1, nearest rank) of n samples sorted ascending (bench_median sorts). */
static inline double bench_quantile(const double* sorted, long n, double q) {
  if (n <= 0) return 0;
  long i = (long)(q * (double)n);
  if (i > n - 1) i = n - 1;
  return sorted[i];
}

/* -P: the spread of one row's samples (sorted ascending), a comment line after the row: a
 * run whose median is slow shows here whether every iteration was slow or a tail was. */
static inline void bench_print_spread(FILE* f, const double* sorted, long n) {
  fprintf(f, "# spread over %ld iterations (us): min %.2f p10 %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f\n", n,
          bench_quantile(sorted, n, 0) * 1e6, bench_quantile(sorted, n, 0.1) * 1e6, bench_quantile(sorted, n, 0.5) * 1e6,
          bench_quantile(sorted, n, 0.9) * 1e6, bench_quantile(sorted, n, 0.99) * 1e6, bench_quantile(sorted, n, 1) * 1e6);
  fflush(f);
}

/* busbw = algbw x factor, as nccl-tests define it (1 where they define none). */
static inline double bench_busbw_factor(const char* coll, int p) {
  const double n = (double)p;
  if (p <= 1) return strcmp(coll, "allreduce") == 0 ? 0.0 : 1.0;
  if (strcmp(coll, "allreduce") == 0) return 2.0 * (n - 1) / n;
  if (strcmp(coll, "allgather") == 0 || strcmp(coll, "reduce_scatter") == 0 || strcmp(coll, "alltoall") == 0 ||
      strcmp(coll, "gather") == 0 || strcmp(coll, "scatter") == 0 || strcmp(coll, "allgatherv") == 0 ||
      strcmp(coll, "reduce_scatter_v") == 0 || strcmp(coll, "alltoallv") == 0 || strcmp(coll, "alltoallv_skew") == 0 ||
      strcmp(coll, "gatherv") == 0 || strcmp(coll, "scatterv") == 0)
    return (n - 1) / n;
  return 1.0;
}

static inline void bench_print_header(FILE* f, const char* system, const char* coll, int p, double target_s) {
  fprintf(f, "# %s %s, %d ranks, target %.2f s per size; time = median over iterations of the slowest rank\n", system,
          coll, p, target_s);
  fprintf(f, "%-14s %12s %12s %-9s %-5s %-20s %7s %12s %10s %10s %6s\n", "# collective", "size(B)", "count", "type",
          "op", "algo", "iters", "time(us)", "algbw", "busbw", "check");
}

static inline void bench_print_row(FILE* f, const char* coll, size_t bytes, size_t count, const char* type,
                                   const char* op, const char* algo, long iters, double median_s, int p, int check_ok) {
  const double algbw = median_s > 0 ? (double)bytes / median_s / 1e9 : 0;
  fprintf(f, "%-14s %12zu %12zu %-9s %-5s %-20s %7ld %12.2f %10.3f %10.3f %6s\n", coll, bytes, count, type, op, algo,
          iters, median_s * 1e6, algbw, algbw * bench_busbw_factor(coll, p),
          check_ok < 0 ? "-" : check_ok ? "ok" : "WRONG");
  fflush(f);
}

/* "4", "1K", "64K", "1M" (binary multiples), "1.5M". 0 and a message on a malformed size. */
static inline size_t bench_parse_size(const char* s, int* ok) {
  char* end;
  double v = strtod(s, &end);
  *ok = end != s && v >= 0;
  switch (*end) {
    case 'K': case 'k': v *= 1024.0; ++end; break;
    case 'M': case 'm': v *= 1024.0 * 1024; ++end; break;
    case 'G': case 'g': v *= 1024.0 * 1024 * 1024; ++end; break;
    default: break;
  }
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') *ok = 0;
  return *ok ? (size_t)v : 0;
}

#endif /* NEXAR_TOOLS_BENCH_METHOD_H */
