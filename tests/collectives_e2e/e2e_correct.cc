// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Correctness scenarios: every collective against local references, every dtype x op of
// allreduce, bit identity across ranks, and vectors above 8 MiB.
#include <algorithm>
#include <vector>

#include "e2e_probe.h"

namespace e2e {
namespace {

std::vector<size_t> counts_for(int p) {
  std::vector<size_t> out{0, 1};
  if (p > 2) out.push_back(static_cast<size_t>(p - 1));  // fewer elements than ranks
  out.push_back(13);
  out.push_back(31);
  return out;
}

std::vector<int> roots_for(int p) {
  std::vector<int> out{0};
  if (p > 1) out.push_back(p - 1);
  if (p > 2) out.push_back(p / 2);
  return out;
}

bool has_in_place(Kind k) { return k != Kind::BROADCAST && k != Kind::BARRIER && k != Kind::BUCKETED; }

// Checks a case whose data may round (RANDOM): against the reference where the order of
// operations cannot matter (<= 2 ranks), and for bit identity across ranks always.
void run_identical(const Case& c) {
  Prepared prep(c, g_rank, g_size);
  E2E_OK(prep.start(g_world, nullptr));
  if (g_size <= 2) {
    const std::string err = prep.verify();
    E2E_CHECK(err.empty(), err);
  }
  E2E_CHECK(same_on_all_ranks(prep.result_hash()), c.label() + ": ranks got different bits");
}

}  // namespace

void scenario_sweep() {
  const Kind kinds[] = {Kind::ALLREDUCE, Kind::BROADCAST, Kind::REDUCE, Kind::ALLGATHER, Kind::REDUCE_SCATTER,
                        Kind::GATHER,    Kind::SCATTER,   Kind::ALLTOALL, Kind::SCAN,    Kind::EXSCAN,
                        Kind::BUCKETED,  Kind::BARRIER};
  uint32_t seed = 0;
  for (Kind k : kinds)
    for (size_t count : counts_for(g_size))
      for (int root : kind_has_root(k) ? roots_for(g_size) : std::vector<int>{0})
        for (bool in_place : has_in_place(k) ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
          ++seed;  // dtypes and ops rotate from case to case
          Case c;
          c.kind = k;
          c.count = count;
          c.dtype = kDtypes[(seed * 3 + static_cast<uint32_t>(k)) % 10];
          c.op = kOps[seed % 5];
          c.root = root;
          c.in_place = in_place;
          c.seed = seed;
          run_checked(c, seed % 3 == 1);
        }
}

void scenario_reduce_sizes() {
  // Around where a reduce's blocks are cut: reduce shm_direct at 2 ranks gives the root 16 KiB
  // more than two thirds (all of a vector up to 16 KiB), so the other rank's block is empty,
  // a few elements, or a third; element sizes 2, 4 and 8 cut it at different counts.
  uint32_t seed = 4000;
  for (nexar_dtype_t d : {NEXAR_FLOAT16, NEXAR_INT32, NEXAR_FLOAT64})
    for (size_t bytes : {size_t{16} << 10, (size_t{16} << 10) + 24, size_t{24} << 10, (size_t{64} << 10) + 40,
                         size_t{300} << 10})
      for (int root : roots_for(g_size))
        for (bool in_place : {false, true}) {
          Case c;
          c.kind = Kind::REDUCE;
          c.dtype = d;
          c.count = bytes / dtype_bytes(d);
          c.op = d == NEXAR_INT32 ? NEXAR_MAX : NEXAR_SUM;
          c.root = root;
          c.in_place = in_place;
          c.seed = ++seed;
          run_checked(c, false);
        }
}

void scenario_dtypes() {
  uint32_t seed = 1000;
  for (nexar_dtype_t d : kDtypes)
    for (nexar_op_t op : kOps)
      for (size_t count : {size_t{13}, size_t{1000}}) {
        Case c;
        c.kind = Kind::ALLREDUCE;
        c.count = count;
        c.dtype = d;
        c.op = op;
        c.in_place = (++seed % 2) == 0;
        c.seed = seed;
        run_checked(c, false);
        if (g_size == 2) {  // one operation per element: rounding itself is checked exactly
          c.data = DataKind::RANDOM;
          run_checked(c, false);
        }
      }
}

void scenario_identical() {
  uint32_t seed = 2000;
  for (nexar_dtype_t d : {NEXAR_FLOAT16, NEXAR_BFLOAT16, NEXAR_FLOAT32, NEXAR_FLOAT64})
    for (nexar_op_t op : {NEXAR_SUM, NEXAR_AVG, NEXAR_PROD})
      for (size_t count : {size_t{1}, size_t{13}, size_t{70001}})
        for (Kind k : {Kind::ALLREDUCE, Kind::BUCKETED}) {
          Case c;
          c.kind = k;
          c.count = count;
          c.dtype = d;
          c.op = op;
          c.data = DataKind::RANDOM;
          c.seed = ++seed;
          run_identical(c);
        }
}

void scenario_large() {
  // 8 MiB + 4100 bytes of float32: not a multiple of the ring segment (1 MiB) nor of p.
  const size_t big = ((size_t{8} << 20) + 4100) / 4;
  const size_t p = static_cast<size_t>(g_size), r = static_cast<size_t>(g_rank);
  // Allreduce: every rank checks its own p-th of the result and all results are the same bits.
  for (bool in_place : {false, true}) {
    Case c;
    c.kind = Kind::ALLREDUCE;
    c.count = big;
    c.dtype = in_place ? NEXAR_INT32 : NEXAR_FLOAT32;
    c.op = in_place ? NEXAR_MAX : NEXAR_SUM;
    c.in_place = in_place;
    c.seed = 3000 + in_place;
    Prepared prep(c, g_rank, g_size);
    nexar_request_t req;
    E2E_OK(prep.start(g_world, &req));
    E2E_OK(nexar_wait(req));
    const size_t lo = big * r / p, hi = big * (r + 1) / p;
    const std::string err = prep.verify_part(lo, hi - lo);
    E2E_CHECK(err.empty(), err);
    E2E_CHECK(same_on_all_ranks(prep.result_hash()), c.label() + ": ranks got different bits");
  }
  Case c;
  c.kind = Kind::BROADCAST;
  c.count = big;
  c.dtype = NEXAR_FLOAT32;
  c.root = g_size - 1;
  run_checked(c, false);
  c.kind = Kind::REDUCE_SCATTER;  // block r of p: as much reference work as one allreduce slice
  c.count = big / p + 1;
  run_checked(c, false);
  c.kind = Kind::ALLGATHER;
  c.count = big / p + 3;
  run_checked(c, false);
}

}  // namespace e2e
