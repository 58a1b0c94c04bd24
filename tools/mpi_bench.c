// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/*
 * mpi-bench: the same measurement as nexar-bench (tools/bench_method.h, BENCHMARKS.md),
 * over MPI, for comparisons. float32 only; sum/min/max for the reductions.
 *   mpirun -np 4 mpi-bench [-c allreduce|broadcast|reduce|allgather|gather|scatter|reduce_scatter|alltoall|
 *                              alltoallv|alltoallv_skew|barrier]
 *                          [-b MIN] [-e MAX] [-f FACTOR | -l SIZE,SIZE...] [-t SECONDS]
 *                          [-n ITERS] [-w WARMUP] [-o sum|min|max] [-g GROUPS] [--no-check] [-P]
 * -P: the samples' spread after each row, as nexar-bench -P.
 * -g G: inside G communicators split from the world (consecutive blocks), as nexar-bench -g.
 * Rooted collectives (broadcast, reduce, gather, scatter) have root 0, as nexar-bench's.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_method.h"

static int world_rank_, world_size_;
static MPI_Comm comm_; /* where the collective runs: the world or a -g group */
static int rank_, nranks_; /* in comm_ */

typedef enum {
  CALL_BARRIER, CALL_ALLREDUCE, CALL_BCAST, CALL_REDUCE, CALL_ALLGATHER, CALL_GATHER, CALL_SCATTER, CALL_REDUCE_SCATTER,
  CALL_ALLTOALL, CALL_ALLTOALLV
} call_kind;
typedef struct {
  const char* coll;
  call_kind call; /* o.coll's MPI call */
  const char* op_name;
  MPI_Op op;
  double target;
  long iters, warmup;
  int check;
  size_t sizes[64];
  int nsizes;
  int groups;
  int spread; /* -P */
} options;

static void usage(const char* why) {
  if (world_rank_ == 0)
    fprintf(stderr,
            "mpi-bench: %s\nusage: mpi-bench [-c allreduce|broadcast|reduce|allgather|gather|scatter|reduce_scatter|alltoall|alltoallv|"
            "alltoallv_skew|barrier] [-b MIN] "
            "[-e MAX] [-f FACTOR | -l SIZES] [-t SECONDS] [-n ITERS] [-w WARMUP] [-o sum|min|max] [-g GROUPS] "
            "[--no-check] [-P]\n",
            why);
  MPI_Finalize();
  exit(2);
}

static size_t size_arg(const char* s) {
  int good;
  size_t v = bench_parse_size(s, &good);
  if (!good) usage("bad size");
  return v;
}

/* The collectives, each with its MPI call, picked once: run() then compares no names per call (as nexar-bench). */
static const struct {
  const char* name;
  call_kind call;
} kCalls[] = {{"barrier", CALL_BARRIER},         {"allreduce", CALL_ALLREDUCE}, {"broadcast", CALL_BCAST},
              {"reduce", CALL_REDUCE},           {"allgather", CALL_ALLGATHER}, {"gather", CALL_GATHER},
              {"scatter", CALL_SCATTER},         {"reduce_scatter", CALL_REDUCE_SCATTER},
              {"alltoall", CALL_ALLTOALL},       {"alltoallv", CALL_ALLTOALLV}, {"alltoallv_skew", CALL_ALLTOALLV}};

/* 0 for a name mpi-bench does not know. */
static int call_of(const char* coll, call_kind* out) {
  for (size_t i = 0; i < sizeof kCalls / sizeof kCalls[0]; ++i)
    if (!strcmp(coll, kCalls[i].name)) return *out = kCalls[i].call, 1;
  return 0;
}

static options parse(int argc, char** argv) {
  options o = {"allreduce", CALL_ALLREDUCE, "sum", MPI_SUM, 0.5, 0, -1, 1, {0}, 0, 1, 0};
  size_t min_b = 4, max_b = (size_t)64 << 20;
  double factor = 4;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--no-check") == 0) { o.check = 0; continue; }
    if (strcmp(a, "-P") == 0) { o.spread = 1; continue; }
    if (i + 1 >= argc) usage("an option needs a value");
    char* v = argv[++i];
    if (strcmp(a, "-c") == 0) o.coll = v;
    else if (strcmp(a, "-b") == 0) min_b = size_arg(v);
    else if (strcmp(a, "-e") == 0) max_b = size_arg(v);
    else if (strcmp(a, "-f") == 0) factor = atof(v);
    else if (strcmp(a, "-t") == 0) o.target = atof(v);
    else if (strcmp(a, "-n") == 0) o.iters = atol(v);
    else if (strcmp(a, "-w") == 0) o.warmup = atol(v);
    else if (strcmp(a, "-g") == 0) o.groups = atoi(v);
    else if (strcmp(a, "-o") == 0) {
      o.op_name = v;
      if (strcmp(v, "sum") == 0) o.op = MPI_SUM;
      else if (strcmp(v, "min") == 0) o.op = MPI_MIN;
      else if (strcmp(v, "max") == 0) o.op = MPI_MAX;
      else usage("op must be sum, min or max");
    } else if (strcmp(a, "-l") == 0) {
      for (char* t = strtok(v, ","); t && o.nsizes < 64; t = strtok(NULL, ",")) o.sizes[o.nsizes++] = size_arg(t);
    } else usage("unknown option");
  }
  if (!call_of(o.coll, &o.call)) usage("unknown collective");
  if (o.groups < 1 || world_size_ % o.groups != 0) usage("-g must divide the number of ranks");
  if (o.nsizes == 0) {
    if (factor <= 1) usage("-f must be > 1");
    for (size_t b = min_b; b <= max_b && o.nsizes < 64; b = b ? (size_t)((double)b * factor) : 1) o.sizes[o.nsizes++] = b;
  }
  return o;
}

static int reduces(const options* o) {
  return o->call == CALL_ALLREDUCE || o->call == CALL_REDUCE || o->call == CALL_REDUCE_SCATTER;
}

/* The same inputs as nexar-bench (bench_collective.cc) for float32. */
static float value(const options* o, int r, size_t i) {
  if (!reduces(o)) return (float)(((size_t)r * 131 + i * 7) % 251) - 125.0f;
  return (float)(((size_t)r * 3 + i) % 7) - 3.0f;
}

static float fold(const options* o, size_t i) {
  float acc = value(o, 0, i);
  for (int q = 1; q < nranks_; ++q) {
    float x = value(o, q, i);
    acc = o->op == MPI_SUM ? acc + x : o->op == MPI_MIN ? fminf(acc, x) : fmaxf(acc, x);
  }
  return acc;
}

typedef struct {
  float *send, *recv;
  size_t count, bytes, send_elems, recv_elems;
  int *sc, *sd, *rc, *rd; /* alltoallv: counts and displacements (as nexar-bench lays them out) */
} buffers;

static int skewed(const options* o) { return !strcmp(o->coll, "alltoallv_skew"); }

static float* page_aligned(size_t elems) {
  void* p = NULL;
  if (posix_memalign(&p, 4096, elems ? elems * sizeof(float) : 1)) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(p, 0, elems ? elems * sizeof(float) : 1); /* touched before timing */
  return (float*)p;
}

static buffers prepare(const options* o, size_t bytes) {
  buffers b;
  const size_t p = (size_t)nranks_;
  const call_kind c = o->call;
  const int root = rank_ == 0;
  /* the collectives whose size is p blocks (nexar-bench's "family") */
  const int family = c != CALL_ALLREDUCE && c != CALL_BCAST && c != CALL_REDUCE;
  /* above 0 but below one element per rank: one element per rank, as nexar-bench does */
  b.count = family ? (bytes && bytes < p * sizeof(float) ? 1 : bytes / (p * sizeof(float))) : bytes / sizeof(float);
  b.bytes = family ? b.count * p * sizeof(float) : b.count * sizeof(float);
  const size_t all = b.count * p;
  b.send_elems = c == CALL_BCAST ? 0 : c == CALL_SCATTER ? (root ? all : 0)
               : family && c != CALL_ALLGATHER && c != CALL_GATHER ? all : b.count;
  b.recv_elems = c == CALL_REDUCE ? (root ? b.count : 0) : c == CALL_GATHER ? (root ? all : 0)
               : family && c != CALL_REDUCE_SCATTER && c != CALL_SCATTER ? all : b.count;
  if (skewed(o)) { /* rank 0 receives 4 blocks from everyone; each rank sends bytes in all */
    b.count = bytes / ((p + 3) * sizeof(float));
    b.bytes = b.count * (p + 3) * sizeof(float);
    b.send_elems = b.count * (p + 3);
    b.recv_elems = rank_ == 0 ? 4 * b.count * p : b.count * p;
  }
  b.sc = malloc(p * sizeof(int)), b.sd = malloc(p * sizeof(int)), b.rc = malloc(p * sizeof(int)), b.rd = malloc(p * sizeof(int));
  for (size_t j = 0; j < p; ++j) {
    b.sc[j] = (int)(skewed(o) && j == 0 ? 4 * b.count : b.count);
    b.rc[j] = (int)(skewed(o) && rank_ == 0 ? 4 * b.count : b.count);
    b.sd[j] = j ? b.sd[j - 1] + b.sc[j - 1] : 0;
    b.rd[j] = j ? b.rd[j - 1] + b.rc[j - 1] : 0;
  }
  b.send = page_aligned(b.send_elems);
  b.recv = page_aligned(b.recv_elems);
  for (size_t i = 0; i < b.send_elems; ++i) b.send[i] = value(o, rank_, i);
  if (!strcmp(o->coll, "broadcast") && rank_ == 0)
    for (size_t i = 0; i < b.count; ++i) b.recv[i] = value(o, 0, i);
  return b;
}

static void run(const options* o, buffers* b) {
  const int n = (int)b->count;
  switch (o->call) {
    case CALL_BARRIER: MPI_Barrier(comm_); break;
    case CALL_ALLREDUCE: MPI_Allreduce(b->send, b->recv, n, MPI_FLOAT, o->op, comm_); break;
    case CALL_BCAST: MPI_Bcast(b->recv, n, MPI_FLOAT, 0, comm_); break;
    case CALL_REDUCE: MPI_Reduce(b->send, b->recv, n, MPI_FLOAT, o->op, 0, comm_); break;
    case CALL_ALLGATHER: MPI_Allgather(b->send, n, MPI_FLOAT, b->recv, n, MPI_FLOAT, comm_); break;
    case CALL_GATHER: MPI_Gather(b->send, n, MPI_FLOAT, b->recv, n, MPI_FLOAT, 0, comm_); break;
    case CALL_SCATTER: MPI_Scatter(b->send, n, MPI_FLOAT, b->recv, n, MPI_FLOAT, 0, comm_); break;
    case CALL_REDUCE_SCATTER: MPI_Reduce_scatter_block(b->send, b->recv, n, MPI_FLOAT, o->op, comm_); break;
    case CALL_ALLTOALL: MPI_Alltoall(b->send, n, MPI_FLOAT, b->recv, n, MPI_FLOAT, comm_); break;
    case CALL_ALLTOALLV: MPI_Alltoallv(b->send, b->sc, b->sd, MPI_FLOAT, b->recv, b->rc, b->rd, MPI_FLOAT, comm_); break;
  }
}

static float expected(const options* o, const buffers* b, size_t i) {
  const size_t n = b->count, r = (size_t)rank_;
  if (!strcmp(o->coll, "barrier")) return b->recv[i];
  if (!strcmp(o->coll, "allreduce") || !strcmp(o->coll, "reduce")) return fold(o, i);
  if (!strcmp(o->coll, "scatter")) return value(o, 0, r * n + i);
  if (!strcmp(o->coll, "reduce_scatter")) return fold(o, r * n + i);
  if (!strcmp(o->coll, "broadcast")) return value(o, 0, i);
  if (!strcmp(o->coll, "allgather") || !strcmp(o->coll, "gather")) return value(o, (int)(i / n), i % n);
  if (skewed(o)) { /* block q from rank q, at q's displacement for this rank */
    const size_t blk = (size_t)b->rc[0];
    return value(o, (int)(i / blk), (r == 0 ? 0 : 4 * n + (r - 1) * n) + i % blk);
  }
  return value(o, (int)(i / n), r * n + i % n); /* alltoall, alltoallv */
}

static void measure(const options* o, size_t size) {
  buffers b = prepare(o, size);
  run(o, &b);
  int good = 1;
  for (size_t i = 0; o->check && good && i < b.recv_elems; ++i)
    if (b.recv[i] != expected(o, &b, i)) {
      fprintf(stderr, "mpi-bench (rank %d): WRONG RESULT at element %zu: %g, want %g\n", rank_, i, b.recv[i],
              expected(o, &b, i));
      good = 0;
    }
  MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  double t0 = bench_now();
  for (int i = 0; i < 2; ++i) run(o, &b);
  double cost = (bench_now() - t0) / 2;
  MPI_Allreduce(MPI_IN_PLACE, &cost, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const long k = bench_iterations(o->target, cost, o->iters);
  for (long i = bench_warmup(o->target, cost, k, o->warmup); i > 0; --i) run(o, &b);
  double* samples = malloc((size_t)k * sizeof(double));
  for (long i = 0; i < k; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double a = bench_now();
    run(o, &b);
    samples[i] = bench_now() - a;
  }
  MPI_Allreduce(MPI_IN_PLACE, samples, (int)k, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank_ == 0)
    bench_print_row(stdout, o->coll, b.bytes, b.count, "float32", reduces(o) ? o->op_name : "-", "mpi", k,
                    bench_median(samples, k), nranks_, o->check ? good : -1);
  if (world_rank_ == 0 && o->spread) bench_print_spread(stdout, samples, k);
  free(samples);
  free(b.send);
  free(b.recv);
  free(b.sc), free(b.sd), free(b.rc), free(b.rd);
  if (!good) MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size_);
  options o = parse(argc, argv);
  comm_ = MPI_COMM_WORLD;
  if (o.groups > 1) MPI_Comm_split(MPI_COMM_WORLD, world_rank_ / (world_size_ / o.groups), world_rank_, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &nranks_);
  if (world_rank_ == 0) bench_print_header(stdout, "mpi", o.coll, world_size_, o.target);
  if (!strcmp(o.coll, "barrier")) measure(&o, 0);
  else
    for (int i = 0; i < o.nsizes; ++i) measure(&o, o.sizes[i]);
  if (comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
  MPI_Finalize();
  return 0;
}
