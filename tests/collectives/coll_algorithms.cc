// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Every collective algorithm, forced in turn through NEXAR_ALGO, on in-process worlds
// (thread_world.h) of 1..8 ranks ("[long]": 11 and 16), counts 0, 1, fewer than the
// ranks and odd primes, several roots, in place and out of place, against references
// computed locally.
#include <catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>

#include "coll_checks.h"
#include "coll_test_util.h"
#include "core/dtype.h"
#include "core/topology.h"
#include "thread_world.h"

using namespace nexar;
using namespace nexar::coll;
using namespace nexar::coll::test;

namespace {

void sweep_all(bool long_suite) {
  sweep(CollKind::ALLREDUCE, long_suite, NEXAR_FLOAT32, NEXAR_SUM, true);
  sweep(CollKind::ALLREDUCE, long_suite, NEXAR_INT8, NEXAR_PROD, false);
  sweep(CollKind::BROADCAST, long_suite, NEXAR_INT32, NEXAR_SUM, false);
  sweep(CollKind::REDUCE, long_suite, NEXAR_FLOAT64, NEXAR_AVG, true);
  sweep(CollKind::ALLGATHER, long_suite, NEXAR_UINT8, NEXAR_SUM, true);
  sweep(CollKind::REDUCE_SCATTER, long_suite, NEXAR_INT64, NEXAR_MAX, true);
  sweep(CollKind::GATHER, long_suite, NEXAR_FLOAT16, NEXAR_SUM, true);
  sweep(CollKind::SCATTER, long_suite, NEXAR_UINT32, NEXAR_SUM, true);
  sweep(CollKind::ALLTOALL, long_suite, NEXAR_INT32, NEXAR_SUM, true);
  sweep(CollKind::SCAN, long_suite, NEXAR_INT32, NEXAR_SUM, true);
  sweep(CollKind::EXSCAN, long_suite, NEXAR_BFLOAT16, NEXAR_MIN, true);
}

void check_barrier(int p, const ThreadWorld::Options& opts = {}) {
  ThreadWorld w(p, opts);
  std::atomic<int> arrived{0};
  std::atomic<int> early{0};
  const auto st = w.run([&](CollContext& ctx) {
    for (int round = 0; round < 3; ++round) {
      arrived.fetch_add(1);
      NX_RETURN_IF_ERROR(select_and_run(ctx, CollArgs{CollKind::BARRIER}));
      if (arrived.load() < (round + 1) * p) early.fetch_add(1);  // left before everyone came
      NX_RETURN_IF_ERROR(select_and_run(ctx, CollArgs{CollKind::BARRIER}));
    }
    return Status::Ok();
  });
  for (const Status& s : st) REQUIRE(s.ok());
  REQUIRE(early.load() == 0);
  REQUIRE(w.leftovers().empty());
}

}  // namespace

TEST_CASE("every algorithm of every collective, world sizes 1-8", "[algorithms]") { sweep_all(false); }

TEST_CASE("every algorithm of every collective, world sizes 11 and 16", "[.][long]") { sweep_all(true); }

TEST_CASE("allreduce: every dtype x op with every algorithm", "[algorithms]") {
  for (const AlgoDesc* algo : algos_of(CollKind::ALLREDUCE)) {
    ScopedEnv env("NEXAR_ALGO", (std::string("allreduce:") + algo->name).c_str());
    for (int p : {3, 4})
      for (nexar_dtype_t d : kAllDtypes)
        for (nexar_op_t op : kAllOps) {
          if (!applies(*algo, p)) continue;
          INFO(algo->name);
          check_collective(CollKind::ALLREDUCE, Case{p, 13, d, op, 0, p == 3});
        }
  }
}

TEST_CASE("reductions of other collectives: every op on float16 and int8", "[algorithms]") {
  for (CollKind kind : {CollKind::REDUCE, CollKind::REDUCE_SCATTER, CollKind::SCAN, CollKind::EXSCAN})
    for (const AlgoDesc* algo : algos_of(kind)) {
      ScopedEnv env("NEXAR_ALGO", (std::string(coll_kind_name(kind)) + ":" + algo->name).c_str());
      for (nexar_dtype_t d : {NEXAR_FLOAT16, NEXAR_INT8, NEXAR_UINT64})
        for (nexar_op_t op : kAllOps) {
          if (!applies(*algo, 4)) continue;
          INFO(algo->name);
          check_collective(kind, Case{4, 7, d, op, 1, false});
        }
    }
}

TEST_CASE("allreduce gives every rank the same bits on inexact data", "[algorithms]") {
  for (const AlgoDesc* algo : algos_of(CollKind::ALLREDUCE)) {
    ScopedEnv env("NEXAR_ALGO", (std::string("allreduce:") + algo->name).c_str());
    ScopedEnv seg("NEXAR_RING_SEGMENT_BYTES", "100");
    for (int p : {2, 3, 5, 6, 8})
      for (nexar_dtype_t d : {NEXAR_FLOAT32, NEXAR_BFLOAT16, NEXAR_FLOAT64})
        for (nexar_op_t op : {NEXAR_SUM, NEXAR_AVG}) {
          if (!applies(*algo, p)) continue;
          const size_t n = 1031, es = dtype_size(d);
          std::vector<Bytes> data(p), out(p, Bytes(n * es));
          for (int r = 0; r < p; ++r) data[r] = make_random(r, n, d, 99);
          ThreadWorld w(p);
          const auto st = w.run([&](CollContext& ctx) {
            const int r = ctx.rank();
            return select_and_run(ctx, CollArgs{CollKind::ALLREDUCE, data[r].data(), out[r].data(), n, d, op});
          });
          INFO(algo->name << " p=" << p << " " << describe(d, op));
          for (const Status& s : st) REQUIRE(s.ok());
          for (int r = 1; r < p; ++r) require_same(out[r], out[0]);
          // And close to the sum computed in double.
          for (size_t i = 0; i < n; i += 97) {
            double want = 0, mag = 0;
            for (int r = 0; r < p; ++r) {
              double x = 0;
              if (d == NEXAR_FLOAT32) { float f; std::memcpy(&f, &data[r][i * 4], 4); x = f; }
              else if (d == NEXAR_FLOAT64) std::memcpy(&x, &data[r][i * 8], 8);
              else { uint16_t h; std::memcpy(&h, &data[r][i * 2], 2); x = bf16_to_float(h); }
              want += x;
              mag += std::fabs(x);
            }
            if (op == NEXAR_AVG) { want /= p; mag /= p; }
            double got = 0;
            if (d == NEXAR_FLOAT32) { float f; std::memcpy(&f, &out[0][i * 4], 4); got = f; }
            else if (d == NEXAR_FLOAT64) std::memcpy(&got, &out[0][i * 8], 8);
            else { uint16_t h; std::memcpy(&h, &out[0][i * 2], 2); got = bf16_to_float(h); }
            REQUIRE(std::fabs(got - want) <= mag * (d == NEXAR_BFLOAT16 ? 0.05 : 1e-5));
          }
        }
  }
}

TEST_CASE("pipelined ring: segments not dividing blocks, every depth", "[algorithms]") {
  ScopedEnv env("NEXAR_ALGO", "allreduce:ring_pipelined");
  for (const char* seg : {"4", "60", "1000"})
    for (const char* depth : {"1", "2", "5"}) {
      ScopedEnv s("NEXAR_RING_SEGMENT_BYTES", seg), dp("NEXAR_RING_PIPELINE_DEPTH", depth);
      for (int p : {2, 3, 5, 8})
        for (size_t count : {size_t{1}, size_t{7}, size_t{1031}}) {
          INFO("segment " << seg << " depth " << depth);
          check_collective(CollKind::ALLREDUCE, Case{p, count, NEXAR_FLOAT32, NEXAR_SUM, 0, count == 7});
          check_collective(CollKind::ALLREDUCE, Case{p, count, NEXAR_FLOAT16, NEXAR_AVG, 0, count != 7});
        }
    }
}

TEST_CASE("above 8 MiB, not a multiple of the segment size", "[algorithms][large]") {
  const size_t count = (size_t{8} << 20) / 4 + 4099;  // float32: 8 MiB + 16 KiB
  for (const char* algo : {"ring", "ring_pipelined", "halving_doubling"}) {
    ScopedEnv env("NEXAR_ALGO", (std::string("allreduce:") + algo).c_str());
    INFO(algo);
    check_collective(CollKind::ALLREDUCE, Case{3, count, NEXAR_FLOAT32, NEXAR_SUM, 0, true});
  }
  ScopedEnv env("NEXAR_ALGO", "broadcast:scatter_allgather");
  check_collective(CollKind::BROADCAST, Case{4, count, NEXAR_FLOAT32, NEXAR_SUM, 3, false});
}

TEST_CASE("barrier: nobody leaves before everyone arrived", "[algorithms]") {
  for (const AlgoDesc* algo : algos_of(CollKind::BARRIER)) {
    const std::string force = std::string("barrier:") + algo->name;
    ScopedEnv env("NEXAR_ALGO", force.c_str());
    INFO(force);
    for (int p : {1, 2, 3, 5, 6, 8})
      if (applies(*algo, p)) check_barrier(p);
  }
}

// Where the topology links only some ranks (the communicator's routes say what relaying
// costs each pattern), the model's choices send only between neighbours when such an
// algorithm exists, and their results are exact.
TEST_CASE("on a sparse topology the chosen algorithms send only between neighbours", "[algorithms][topology]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  // A cheaper message moves kregular:4's ring crossover down to ~200 KB (the default
  // model's choices at their sizes: coll_selection), so the check stays fast.
  ScopedEnv latency("NEXAR_COST_LATENCY_US", "10");
  struct Call {
    CollKind kind;
    size_t count;  // of floats
    int root = 0;
  };
  struct Graph {
    const char* text;
    int p;
    std::vector<Call> calls;
  };
  const size_t big = 128 << 10;  // 512 KiB of floats: a ring's on kregular:4
  // Trees from roots other than 0 too: over r ^ root, partners still differ in one bit.
  const Graph graphs[] = {
      {"hypercube", 8, {{CollKind::ALLREDUCE, 3}, {CollKind::ALLREDUCE, big}, {CollKind::ALLGATHER, 1000},
                        {CollKind::REDUCE_SCATTER, 1000}, {CollKind::BROADCAST, 1000}, {CollKind::REDUCE, 1000},
                        {CollKind::BROADCAST, 1000, 5}, {CollKind::REDUCE, 1000, 6}, {CollKind::BROADCAST, 3, 3},
                        {CollKind::REDUCE, 3, 7}, {CollKind::BARRIER, 0}}},
      {"kregular:4", 8, {{CollKind::ALLREDUCE, big}, {CollKind::ALLGATHER, big / 8}, {CollKind::REDUCE_SCATTER, big / 8}}},
  };
  for (const Graph& g : graphs) {
    topology::Topology t;
    REQUIRE(topology::parse(g.text, g.p, &t).ok());
    std::atomic<int> relayed{0};
    ThreadWorld::Options opts;
    opts.routes = route_stretch(g.p, [&](int a, int b) { return topology::hops(t, g.p, a, b); });
    opts.on_send = [&](int src, int dst) {
      if (!topology::adjacent(t, g.p, src, dst)) relayed.fetch_add(1);
    };
    for (const auto& [kind, count, root] : g.calls) {
      INFO(g.text << " p=" << g.p << " " << coll_kind_name(kind) << " of " << count << " floats, root " << root);
      if (kind == CollKind::BARRIER) check_barrier(g.p, opts);
      else check_collective(kind, Case{g.p, count, NEXAR_FLOAT32, NEXAR_SUM, root, false}, opts);
      CHECK(relayed.load() == 0);
    }
  }
}

TEST_CASE("allreduce_bucketed: many buffers fused, buckets straddling buffers", "[algorithms]") {
  for (const char* bucket : {"12", "64", "100000000"})
    for (int p : {1, 3, 4}) {
      ScopedEnv env("NEXAR_BUCKET_BYTES", bucket);
      const std::vector<size_t> counts{5, 0, 17, 1, 3, 40};
      const nexar_dtype_t d = NEXAR_INT32;
      std::vector<std::vector<Bytes>> bufs(p);
      for (int r = 0; r < p; ++r) {
        size_t first = 0;
        for (size_t c : counts) {
          bufs[r].push_back(make_data(r, c, d, NEXAR_SUM, first));
          first += c;
        }
      }
      ThreadWorld w(p);
      const auto st = w.run([&](CollContext& ctx) {
        std::vector<void*> ptrs;
        for (Bytes& b : bufs[ctx.rank()]) ptrs.push_back(b.empty() ? nullptr : b.data());
        CollArgs a{CollKind::ALLREDUCE_BUCKETED};
        a.dtype = d;
        a.op = NEXAR_SUM;
        a.bufs = ptrs.data();
        a.counts = counts.data();
        a.nbufs = counts.size();
        return select_and_run(ctx, a);
      });
      INFO("bucket " << bucket << " p=" << p);
      for (const Status& s : st) REQUIRE(s.ok());
      REQUIRE(w.leftovers().empty());
      size_t first = 0;
      for (size_t i = 0; i < counts.size(); ++i) {
        const Bytes want = reference_reduce(0, p, counts[i], d, NEXAR_SUM, first);
        for (int r = 0; r < p; ++r) require_same(bufs[r][i], want);
        first += counts[i];
      }
    }
}
