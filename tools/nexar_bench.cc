// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar-bench: collective latency and bandwidth, in the style of nccl-tests.
//   nexrun -np 4 nexar-bench [-c allreduce|...|all|compressed] [-b 4] [-e 64M] [-f 4 | -l 4,1K,64K]
//   (compressed: nexar_allreduce_compressed at ratios 0.01, 0.1, 1 beside nexar_allreduce,
//   float32, tools/bench_compressed.h)
//   (the collectives with a count per rank run with equal counts and are sized as their
//   fixed-count namesakes; alltoallv_skew: each rank sends SIZE bytes, 4x as much to rank 0)
//                            [-t SECONDS | -n ITERS] [-w WARMUP] [-d float32] [-o sum|prod|min|max|avg|band|bor|bxor]
//                            [-r ROOT] [-g GROUPS] [--algo NAME] [--no-check] [-B] [-P]
//   -g G: the collective runs inside G communicators split from the world (G consecutive
//   blocks of ranks, as tensor-parallel groups are), all at once; sizes and bus bandwidth
//   are per group.
// Method (../shared/design/BENCHMARKS.md, tools/bench_method.h): page-aligned buffers
// touched first; one correctness check per size; 2 iterations estimate the cost (the
// slowest rank's, so every rank runs the same count); ~10% of the target time of warm-up;
// K = target / cost iterations clamped to [5, 20000]; each timed iteration is an untimed
// barrier, t0, the collective, t1; the sample is the max over ranks of t1 - t0 (one
// allreduce MAX over all samples after timing); the table reports the median.
//   -B (back to back): the timed iterations run with no barrier between them, as a training
//   loop calls them (torch_bench.py times so): a sample is the time from the end of this
//   rank's previous call to the end of this one, so each call also absorbs the ranks' skew;
//   the row reports the median and a comment line after it the mean, p90 and maximum.
//   -P: a comment line after each row with the samples' spread (min, p10, p50, p90, p99, max).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_collective.h"
#include "bench_compressed.h"
#include "bench_method.h"
#include "collectives/algo_table.h"

namespace {

nexar_comm_t world = nullptr;
int rank = 0, nranks = 1;
nexar_comm_t group = nullptr;  // the communicator the collective runs on (the world, or -g's)
int grank = 0, gsize = 1;

void ok(nexar_result_t r, const std::string& what) {
  if (r == NEXAR_SUCCESS) return;
  std::fprintf(stderr, "nexar-bench (rank %d): %s: %s: %s\n", rank, what.c_str(), nexar_result_string(r),
               nexar_comm_last_error(world));
  std::exit(1);
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "nexar-bench: %s\n"
               "usage: nexar-bench [-c COLL|all] [-b MIN] [-e MAX] [-f FACTOR | -l SIZE,SIZE...] [-t SECONDS]\n"
               "                   [-n ITERS] [-w WARMUP] [-d DTYPE] [-o OP] [-r ROOT] [-g GROUPS] [--algo NAME]\n"
               "                   [--no-check] [-B] [-P]\n"
               "  sizes in bytes as nccl-tests count them (K, M, G: binary multiples)\n",
               why.c_str());
  std::exit(2);
}

struct Options {
  std::vector<std::string> colls{"allreduce"};
  std::vector<size_t> sizes;
  size_t min_b = 4, max_b = 64u << 20;
  double factor = 4, target = 0.5;
  long iters = 0, warmup = -1;
  nexar_dtype_t dtype = NEXAR_FLOAT32;
  nexar_op_t op = NEXAR_SUM;
  int root = 0;
  int groups = 1;
  std::string algo;
  bool check = true;
  bool back_to_back = false;  // -B
  bool spread = false;        // -P
};

size_t size_arg(const char* s) {
  int good;
  const size_t v = bench_parse_size(s, &good);
  if (!good) usage(std::string("bad size '") + s + "'");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-check") { o.check = false; continue; }
    if (a == "-B") { o.back_to_back = true; continue; }
    if (a == "-P") { o.spread = true; continue; }
    if (i + 1 >= argc) usage("option " + a + " needs a value");
    char* v = argv[++i];
    if (a == "-c") {
      o.colls = std::string(v) == "all" ? nexar_bench::collective_names() : std::vector<std::string>{v};
      for (const std::string& c : o.colls) {
        if (c == "compressed") continue;
        bool known = false;
        for (const std::string& n : nexar_bench::collective_names()) known |= n == c;
        if (!known) usage("unknown collective '" + c + "'");
      }
    } else if (a == "-b") o.min_b = size_arg(v);
    else if (a == "-e") o.max_b = size_arg(v);
    else if (a == "-f") o.factor = std::atof(v);
    else if (a == "-l") {
      for (char* tok = std::strtok(v, ","); tok; tok = std::strtok(nullptr, ",")) o.sizes.push_back(size_arg(tok));
    } else if (a == "-t") o.target = std::atof(v);
    else if (a == "-n") o.iters = std::atol(v);
    else if (a == "-w") o.warmup = std::atol(v);
    else if (a == "-d") { if (!nexar_bench::parse_dtype(v, &o.dtype)) usage(std::string("unknown dtype '") + v + "'"); }
    else if (a == "-o") { if (!nexar_bench::parse_op(v, &o.op)) usage(std::string("unknown op '") + v + "'"); }
    else if (a == "-r") o.root = std::atoi(v);
    else if (a == "-g") o.groups = std::atoi(v);
    else if (a == "--algo") o.algo = v;
    else usage("unknown option " + a);
  }
  if (o.factor <= 1 && o.sizes.empty()) usage("-f must be > 1");
  if (o.target <= 0) usage("-t must be > 0");
  if (o.sizes.empty())
    for (size_t b = o.min_b; b <= o.max_b; b = b ? static_cast<size_t>(static_cast<double>(b) * o.factor) : 1)
      o.sizes.push_back(b);
  return o;
}

// --algo sets NEXAR_ALGO for the chosen collective before the library reads it.
void force_algorithm(const Options& o) {
  if (o.algo.empty() || o.algo == "auto") return;
  if (o.colls.size() != 1) usage("--algo needs a single collective (-c)");
  const std::string kind = o.colls[0] == "alltoallv_skew" ? "alltoallv" : o.colls[0];
  std::string spec = kind + ":" + o.algo;
  for (const nexar::coll::AlgoDesc& d : nexar::coll::algo_table())
    if (kind == nexar::coll::coll_kind_name(d.kind) && o.algo == d.name) {
      if (const char* old = std::getenv("NEXAR_ALGO"); old && *old) spec = std::string(old) + "," + spec;
      setenv("NEXAR_ALGO", spec.c_str(), 1);
      return;
    }
  usage("no " + o.colls[0] + " algorithm named '" + o.algo + "' (nexar-info lists them)");
}

void measure(const Options& o, const std::string& coll, size_t size) {
  nexar_bench::BenchCollective bc(coll, grank, gsize, o.dtype, o.op, o.root);
  bc.prepare(size);
  // One correctness check per size, agreed across ranks.
  ok(bc.run(group), coll + " (check)");
  std::string why;
  int32_t good = !o.check || bc.check(&why) ? 1 : 0;
  if (!good) std::fprintf(stderr, "nexar-bench (rank %d): WRONG RESULT: %s\n", rank, why.c_str());
  ok(nexar_allreduce(&good, &good, 1, NEXAR_INT32, NEXAR_MIN, world), "check agreement");
  // Cost estimate: 2 iterations, the slowest rank's, so that every rank runs the same K.
  double t0 = bench_now();
  for (int i = 0; i < 2; ++i) ok(bc.run(group), coll);
  double cost = (bench_now() - t0) / 2;
  ok(nexar_allreduce(&cost, &cost, 1, NEXAR_FLOAT64, NEXAR_MAX, world), "cost agreement");
  const long k = bench_iterations(o.target, cost, o.iters);
  for (long i = bench_warmup(o.target, cost, k, o.warmup); i > 0; --i) ok(bc.run(group), coll);
  std::vector<double> samples(static_cast<size_t>(k));
  if (o.back_to_back) {
    ok(nexar_barrier(world), "barrier");
    double a = bench_now();
    for (long i = 0; i < k; ++i) {
      ok(bc.run(group), coll);
      const double b = bench_now();
      samples[static_cast<size_t>(i)] = b - a;
      a = b;
    }
  } else {
    for (long i = 0; i < k; ++i) {
      ok(nexar_barrier(world), "barrier");
      const double a = bench_now();
      ok(bc.run(group), coll);
      samples[static_cast<size_t>(i)] = bench_now() - a;
    }
  }
  ok(nexar_allreduce(samples.data(), samples.data(), samples.size(), NEXAR_FLOAT64, NEXAR_MAX, world), "samples");
  if (rank == 0) {
    const double median = bench_median(samples.data(), k);  // sorts the samples
    bench_print_row(stdout, coll.c_str(), bc.bytes(), bc.count(), nexar_bench::dtype_label(o.dtype),
                    bc.reduces() ? nexar_bench::op_label(o.op) : "-", o.algo.empty() ? "auto" : o.algo.c_str(), k,
                    median, gsize, o.check ? good : -1);
    if (o.back_to_back) {
      double sum = 0;
      for (double x : samples) sum += x;
      std::printf("# back to back: mean %.2f us, p90 %.2f us, max %.2f us\n", sum / static_cast<double>(k) * 1e6,
                  bench_quantile(samples.data(), k, 0.9) * 1e6, bench_quantile(samples.data(), k, 1) * 1e6);
    }
    if (o.spread) bench_print_spread(stdout, samples.data(), k);
  }
  if (!good) std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  force_algorithm(o);
  ok(nexar_init(&world), "init");
  ok(nexar_comm_rank(world, &rank), "rank");
  ok(nexar_comm_size(world, &nranks), "size");
  if (o.groups < 1 || nranks % o.groups != 0)
    usage("-g " + std::to_string(o.groups) + " must divide the " + std::to_string(nranks) + " ranks");
  group = world, grank = rank, gsize = nranks;
  if (o.groups > 1) {
    ok(nexar_comm_split(world, rank / (nranks / o.groups), rank, &group), "split");
    ok(nexar_comm_rank(group, &grank), "rank");
    ok(nexar_comm_size(group, &gsize), "size");
  }
  if (o.root < 0 || o.root >= gsize) usage("-r must be a rank (0 to " + std::to_string(gsize - 1) + ")");
  for (const std::string& coll : o.colls) {
    if (coll == "compressed") {
      nexar_bench::bench_compressed(world, rank, nranks, o.sizes, o.target, o.iters, o.warmup);
      continue;
    }
    if (rank == 0) bench_print_header(stdout, "nexar", coll.c_str(), nranks, o.target);
    if (coll == "barrier") {
      measure(o, coll, 0);
      continue;
    }
    for (size_t size : o.sizes) measure(o, coll, size);
  }
  if (group != world) ok(nexar_comm_destroy(group), "destroy");
  ok(nexar_comm_destroy(world), "destroy");
  return 0;
}
