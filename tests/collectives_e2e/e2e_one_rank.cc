// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Communicators of one rank, the shapes programs make: a split into singletons (color =
// rank) and a dup of one (MPI_COMM_SELF's shape). On each, the scenarios the world runs
// (every collective in and out of place, every dtype x op, blocking calls amid
// non-blocking ones, every local argument error) and every collective x dtype x op in and
// out of place, each argument made wrong right after a call that passed (e2e_passed_call.cc), then one revoked
// and one aborted: their calls report the error and write nothing.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "e2e_probe.h"

namespace e2e {
namespace {

// Every collective of a fixed count x every dtype x every op (of those that reduce) x in
// and out of place, blocking, with random data: on one rank every result is exact (a
// reduction of one value, AVG divided by 1). 13 elements keep it short under the
// sanitizers; cuda_api_no_plugin runs one on buffers outside the brk heap.
void every_kind_dtype_op() {
  const Kind kinds[] = {Kind::ALLREDUCE, Kind::BROADCAST, Kind::REDUCE, Kind::ALLGATHER, Kind::REDUCE_SCATTER,
                        Kind::GATHER,    Kind::SCATTER,   Kind::ALLTOALL, Kind::SCAN,    Kind::EXSCAN};
  uint32_t seed = 5000;
  for (Kind k : kinds)
    for (nexar_dtype_t d : kDtypes)
      for (size_t op_i = 0; op_i < (kind_reduces(k) ? 5u : 1u); ++op_i)
        for (bool in_place : {false, true}) {
          if (in_place && k == Kind::BROADCAST) continue;  // in place only
          Case c;
          c.kind = k;
          c.count = 13;
          c.dtype = d;
          c.op = kOps[op_i];
          c.in_place = in_place;
          c.data = DataKind::RANDOM;
          c.seed = ++seed;
          run_checked(c, false);
        }
}

// A loop's blocking call right behind a non-blocking call whose result it reads, on one
// communicator: the owner's remembered call (api/owned_one_rank.h) takes no claim of the
// collective queue, so it must still run only after the calls queued before it. 64 Ki
// elements: the worker's copy takes longer than the caller's way to its own.
void blocking_behind_nonblocking(nexar_comm_t c) {
  const size_t n = size_t{1} << 16;
  std::vector<int32_t> in(n), mid(n, 0), out(n, 0);
  E2E_OK(nexar_allreduce(mid.data(), out.data(), n, NEXAR_INT32, NEXAR_SUM, c));  // remembered from here on
  E2E_OK(nexar_allreduce(mid.data(), out.data(), n, NEXAR_INT32, NEXAR_SUM, c));
  for (int32_t round = 1; round <= 20; ++round) {
    for (size_t i = 0; i < n; ++i) in[i] = round * 100000 + static_cast<int32_t>(i);
    nexar_request_t req = nullptr;
    E2E_OK(nexar_iallreduce(in.data(), mid.data(), n, NEXAR_INT32, NEXAR_SUM, c, &req));
    E2E_OK(nexar_allreduce(mid.data(), out.data(), n, NEXAR_INT32, NEXAR_SUM, c));
    E2E_OK(nexar_wait(req));
    for (size_t i = 0; i < n; i += 997)
      E2E_CHECK(out[i] == in[i], "round " + std::to_string(round) + " element " + std::to_string(i) + " is " +
                                     std::to_string(out[i]) + ", want " + std::to_string(in[i]) +
                                     " (the blocking call ran ahead of the non-blocking one)");
  }
}

// Two threads calling on one communicator at once, each its own loop (one of them owns the
// remembered calls, the other takes the claimed route), the count changing every third
// call (the owner remembers anew) and a non-blocking call now and then: every result right
// (the TSan build checks that they share nothing unguarded).
void two_threads(nexar_comm_t c) {
  auto loop = [c](int32_t base) {
    int32_t in[8], out[8];
    for (int32_t it = 0; it < 2000; ++it) {
      const size_t n = 8 - static_cast<size_t>(it / 3 % 2);
      for (int32_t i = 0; i < 8; ++i) in[i] = base + it + i, out[i] = -1;
      if (it % 100 == 7) {
        nexar_request_t req = nullptr;
        E2E_OK(nexar_iallreduce(in, out, n, NEXAR_INT32, NEXAR_SUM, c, &req));
        E2E_OK(nexar_wait(req));
      } else {
        E2E_OK(nexar_allreduce(in, out, n, NEXAR_INT32, NEXAR_SUM, c));
      }
      for (size_t i = 0; i < 8; ++i)
        E2E_CHECK(out[i] == (i < n ? in[i] : -1), "thread " + std::to_string(base) + ": a wrong result");
    }
  };
  std::thread other(loop, 1000000);
  loop(0);
  other.join();
}

// Runs the world's scenarios with c standing in for the world.
void scenarios_on(nexar_comm_t c) {
  const nexar_comm_t world = g_world;
  const int rank = g_rank, size = g_size;
  g_world = c;
  g_rank = 0;
  g_size = 1;
  scenario_sweep();
  scenario_dtypes();
  scenario_nonblocking();
  scenario_invalid();
  scenario_bitwise();
  every_kind_dtype_op();
  refused_after_passing(c);
  blocking_behind_nonblocking(c);
  two_threads(c);
  g_world = world;
  g_rank = rank;
  g_size = size;
}

}  // namespace

namespace {
// The buffers of every_call: the same ones each time, so a call that passed is remembered
// (comm/passed_call.h) when the same call comes again. Room for 4 elements x 2 ranks.
int32_t g_in[8], g_out[8];
}  // namespace

std::vector<nexar_result_t> every_call(nexar_comm_t c, size_t count) {
  return {
      nexar_allreduce(g_in, g_out, count, NEXAR_INT32, NEXAR_SUM, c),
      nexar_allgather(g_in, g_out, count, NEXAR_INT32, c),
      nexar_broadcast(g_out, count, NEXAR_INT32, 0, c),
      nexar_reduce(g_in, g_out, count, NEXAR_INT32, NEXAR_MAX, 0, c),
      nexar_reduce_scatter(g_in, g_out, count, NEXAR_INT32, NEXAR_SUM, c),
      nexar_gather(g_in, g_out, count, NEXAR_INT32, 0, c),
      nexar_scatter(g_in, g_out, count, NEXAR_INT32, 0, c),
      nexar_alltoall(g_in, g_out, count, NEXAR_INT32, c),
      nexar_scan(g_in, g_out, count, NEXAR_INT32, NEXAR_PROD, c),
      nexar_exscan(g_in, g_out, count, NEXAR_INT32, NEXAR_MIN, c),
      nexar_barrier(c),
  };
}

void every_call_fails(nexar_comm_t c, nexar_result_t want, const char* word, size_t count) {
  for (int i = 0; i < 8; ++i) g_in[i] = i + 1, g_out[i] = 0;
  const std::vector<nexar_result_t> got = every_call(c, count);
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string msg = nexar_comm_last_error(c);
    E2E_CHECK(got[i] == want, "call " + std::to_string(i) + " returned " + nexar_result_string(got[i]) + ", want " +
                                  nexar_result_string(want));
    E2E_CHECK(msg.find(word) != std::string::npos, "message '" + msg + "' does not name " + word);
  }
  for (int32_t v : g_out) E2E_CHECK(v == 0, "a failed call wrote its output");
  nexar_request_t req = nullptr;
  E2E_CHECK(nexar_iallreduce(g_in, g_out, count, NEXAR_INT32, NEXAR_SUM, c, &req) == want, "the non-blocking call");
  E2E_CHECK(req == nullptr, "a refused call left a request");
}

void scenario_one_rank() {
  nexar_comm_t self = nullptr, dup = nullptr;
  E2E_OK(nexar_comm_split(g_world, g_rank, 0, &self));
  E2E_OK(nexar_comm_dup(self, &dup));
  int n = 0;
  E2E_OK(nexar_comm_size(dup, &n));
  E2E_CHECK(n == 1, "the dup has " + std::to_string(n) + " ranks");
  scenarios_on(self);
  scenarios_on(dup);
  for (nexar_comm_t c : {self, dup})  // every call passes twice (remembered), then fails below
    for (int twice = 0; twice < 2; ++twice)
      for (nexar_result_t r : every_call(c, 4)) E2E_CHECK(r == NEXAR_SUCCESS, nexar_result_string(r));
  E2E_OK(nexar_comm_revoke(dup));
  every_call_fails(dup, NEXAR_ERR_REVOKED, "revoked");
  E2E_OK(nexar_comm_abort(self));
  every_call_fails(self, NEXAR_ERR_ABORTED, "abort");
  nexar_comm_destroy(dup);  // fail (revoked, aborted) and free them anyway
  nexar_comm_destroy(self);
  every_call_fails(self, NEXAR_ERR_INVALID_ARGUMENT, "destroyed");
}

}  // namespace e2e
