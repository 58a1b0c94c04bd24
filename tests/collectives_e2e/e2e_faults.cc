// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Error scenarios: local argument errors (every rank makes the same bad call, so the next
// collective still matches), an algorithm forced where it cannot run, and ranks that
// disagree (every rank must get NEXAR_ERR_MISMATCH naming both calls, promptly).
#include <chrono>
#include <cstring>
#include <vector>

#include "e2e_probe.h"

namespace e2e {
namespace {

void expect_invalid(nexar_result_t r, const char* word, const char* call) {
  const std::string msg = nexar_comm_last_error(g_world);
  E2E_CHECK(r == NEXAR_ERR_INVALID_ARGUMENT, std::string(call) + " returned " + nexar_result_string(r));
  E2E_CHECK(msg.find(word) != std::string::npos, std::string(call) + ": message '" + msg + "' does not name " + word);
}

// The communicator still works: a collective with a check.
void still_works(uint32_t seed) {
  Case c;
  c.kind = Kind::ALLREDUCE;
  c.count = 11;
  c.seed = seed;
  run_checked(c, seed % 2 == 1);
}

}  // namespace

void scenario_invalid() {
  int32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
  const int p = g_size;
  const auto bad_dtype = static_cast<nexar_dtype_t>(99);
  const auto bad_op = static_cast<nexar_op_t>(42);
#define INVALID(call, word) expect_invalid((call), word, #call)
  INVALID(nexar_allreduce(in, out, 8, bad_dtype, NEXAR_SUM, g_world), "dtype");
  INVALID(nexar_allreduce(in, out, 8, NEXAR_INT32, bad_op, g_world), "op");
  INVALID(nexar_scan(in, out, 8, NEXAR_INT32, static_cast<nexar_op_t>(-1), g_world), "op");
  still_works(1);
  INVALID(nexar_broadcast(in, 8, NEXAR_INT32, -1, g_world), "root");
  INVALID(nexar_broadcast(in, 8, NEXAR_INT32, p, g_world), "root");
  INVALID(nexar_reduce(in, out, 8, NEXAR_INT32, NEXAR_SUM, p + 7, g_world), "root");
  INVALID(nexar_gather(in, out, 1, NEXAR_INT32, -3, g_world), "root");
  INVALID(nexar_scatter(in, out, 1, NEXAR_INT32, p, g_world), "root");
  still_works(2);
  INVALID(nexar_allreduce(nullptr, out, 8, NEXAR_INT32, NEXAR_SUM, g_world), "sendbuf");
  INVALID(nexar_allreduce(in, nullptr, 8, NEXAR_INT32, NEXAR_SUM, g_world), "recvbuf");
  INVALID(nexar_broadcast(nullptr, 3, NEXAR_INT32, 0, g_world), "NULL");
  INVALID(nexar_alltoall(in, nullptr, 1, NEXAR_INT32, g_world), "recvbuf");
  INVALID(nexar_reduce_scatter(nullptr, out, 1, NEXAR_INT32, NEXAR_SUM, g_world), "sendbuf");
  void* bufs[2] = {in, nullptr};
  size_t counts[2] = {8, 4};
  INVALID(nexar_allreduce_bucketed(bufs, counts, 2, NEXAR_INT32, NEXAR_SUM, g_world), "bufs[1]");
  INVALID(nexar_allreduce_bucketed(nullptr, counts, 2, NEXAR_INT32, NEXAR_SUM, g_world), "NULL");
  still_works(3);
  // Non-blocking: the error comes at the call and no request is made.
  nexar_request_t req = reinterpret_cast<nexar_request_t>(&in);
  INVALID(nexar_iallreduce(in, out, 8, bad_dtype, NEXAR_SUM, g_world, &req), "dtype");
  E2E_CHECK(req == nullptr, "a failed nexar_iallreduce left a request");
  INVALID(nexar_ireduce(in, out, 8, NEXAR_INT32, NEXAR_SUM, -1, g_world, &req), "root");
  INVALID(nexar_iallgather(nullptr, out, 1, NEXAR_INT32, g_world, &req), "sendbuf");
  INVALID(nexar_iallreduce(in, out, 8, NEXAR_INT32, NEXAR_SUM, g_world, nullptr), "request");
  INVALID(nexar_ibarrier(g_world, nullptr), "request");
  still_works(4);
  // Counts whose bytes fit size_t but no address space: refused before any transport sees
  // them (issue 19: these crashed in ngtcp2 or in shared memory), on every rank alike.
  const size_t huge = SIZE_MAX / 16;
  INVALID(nexar_allreduce(in, out, SIZE_MAX / 2, NEXAR_INT8, NEXAR_SUM, g_world), "count");
  INVALID(nexar_iallreduce(in, out, SIZE_MAX / 2, NEXAR_INT8, NEXAR_SUM, g_world, &req), "count");
  INVALID(nexar_broadcast(in, huge, NEXAR_INT8, 0, g_world), "count");
  INVALID(nexar_ibroadcast(in, huge, NEXAR_INT8, 0, g_world, &req), "count");
  INVALID(nexar_reduce(in, out, huge, NEXAR_INT8, NEXAR_SUM, 0, g_world), "count");
  INVALID(nexar_ireduce(in, out, huge, NEXAR_INT8, NEXAR_SUM, 0, g_world, &req), "count");
  INVALID(nexar_alltoall(in, out, SIZE_MAX / 8, NEXAR_INT32, g_world), "count");
  INVALID(nexar_ialltoall(in, out, SIZE_MAX / 8, NEXAR_INT32, g_world, &req), "count");
  INVALID(nexar_allgather(in, out, huge, NEXAR_INT8, g_world), "count");
  INVALID(nexar_iallgather(in, out, huge, NEXAR_INT8, g_world, &req), "count");
  INVALID(nexar_reduce_scatter(in, out, huge, NEXAR_INT8, NEXAR_SUM, g_world), "count");
  INVALID(nexar_ireduce_scatter(in, out, huge, NEXAR_INT8, NEXAR_SUM, g_world, &req), "count");
  INVALID(nexar_gather(in, out, huge, NEXAR_INT8, 0, g_world), "count");
  INVALID(nexar_igather(in, out, huge, NEXAR_INT8, 0, g_world, &req), "count");
  INVALID(nexar_scatter(in, out, huge, NEXAR_INT8, 0, g_world), "count");
  INVALID(nexar_iscatter(in, out, huge, NEXAR_INT8, 0, g_world, &req), "count");
  INVALID(nexar_scan(in, out, huge, NEXAR_INT8, NEXAR_SUM, g_world), "count");
  INVALID(nexar_iscan(in, out, huge, NEXAR_INT8, NEXAR_SUM, g_world, &req), "count");
  INVALID(nexar_exscan(in, out, huge, NEXAR_INT8, NEXAR_SUM, g_world), "count");
  INVALID(nexar_iexscan(in, out, huge, NEXAR_INT8, NEXAR_SUM, g_world, &req), "count");
  size_t huge_counts[2] = {8, huge};
  void* both[2] = {in, out};
  INVALID(nexar_allreduce_bucketed(both, huge_counts, 2, NEXAR_INT8, NEXAR_SUM, g_world), "counts[1]");
  INVALID(nexar_iallreduce_bucketed(both, huge_counts, 2, NEXAR_INT8, NEXAR_SUM, g_world, &req), "counts[1]");
  E2E_CHECK(req == nullptr, "a refused count left a request");
  still_works(7);
  // A NULL communicator.
  E2E_CHECK(nexar_allreduce(in, out, 8, NEXAR_INT32, NEXAR_SUM, nullptr) == NEXAR_ERR_INVALID_ARGUMENT, "NULL comm");
  E2E_CHECK(nexar_barrier(nullptr) == NEXAR_ERR_INVALID_ARGUMENT, "NULL comm barrier");
#undef INVALID
  still_works(5);
  E2E_OK(nexar_barrier(g_world));
}

// Run with NEXAR_ALGO forcing an algorithm that cannot run with this many ranks
// (allgather:recursive_doubling on a non-power of two): every rank fails the same way,
// locally, and other collectives keep working.
void scenario_algo_error() {
  std::vector<int32_t> in(3, g_rank), out(3 * static_cast<size_t>(g_size));
  expect_invalid(nexar_allgather(in.data(), out.data(), 3, NEXAR_INT32, g_world), "NEXAR_ALGO", "nexar_allgather");
  still_works(6);
  E2E_OK(nexar_barrier(g_world));
}

void scenario_mismatch(const std::string& what) {
  E2E_OK(nexar_comm_set_timeout(g_world, 30.0));
  const bool odd = g_rank == g_size - 1;  // the rank that disagrees
  std::vector<int32_t> in(16, g_rank + 1), out(16 * static_cast<size_t>(g_size));
  // No barrier first: a rank still finishing it when another has already detected the
  // mismatch would (rightly) see that barrier fail.
  const auto t0 = std::chrono::steady_clock::now();
  nexar_result_t r = NEXAR_SUCCESS;
  std::vector<const char*> words;  // what the message must name
  std::string msg_after_wait;
  if (what == "count") {
    r = nexar_allreduce(in.data(), out.data(), odd ? 9 : 8, NEXAR_INT32, NEXAR_SUM, g_world);
    words = {"count 9", "count 8"};
  } else if (what == "dtype") {
    r = nexar_allreduce(in.data(), out.data(), 8, odd ? NEXAR_FLOAT32 : NEXAR_INT32, NEXAR_SUM, g_world);
    words = {"float32", "int32"};
  } else if (what == "op") {
    r = nexar_allreduce(in.data(), out.data(), 8, NEXAR_INT32, odd ? NEXAR_MAX : NEXAR_SUM, g_world);
    words = {"max", "sum"};
  } else if (what == "root") {
    r = nexar_broadcast(in.data(), 8, NEXAR_INT32, odd ? 1 : 0, g_world);
    words = {"root 1", "root 0"};
  } else if (what == "root_reduce") {
    r = nexar_reduce(in.data(), out.data(), 8, NEXAR_INT32, NEXAR_SUM, odd ? 1 : 0, g_world);
    words = {"root 1", "root 0"};
  } else if (what == "root_gather") {
    r = nexar_gather(in.data(), out.data(), 4, NEXAR_INT32, odd ? 1 : 0, g_world);
    words = {"root 1", "root 0"};
  } else if (what == "root_scatter") {
    r = nexar_scatter(out.data(), in.data(), 4, NEXAR_INT32, odd ? 1 : 0, g_world);
    words = {"root 1", "root 0"};
  } else if (what == "count_scan") {  // only lower ranks send to higher ones
    r = nexar_scan(in.data(), out.data(), odd ? 9 : 8, NEXAR_INT32, NEXAR_SUM, g_world);
    words = {"count 9", "count 8"};
  } else if (what == "count_bucketed") {  // the odd rank has nothing to reduce
    void* bufs[1] = {out.data()};
    const size_t counts[1] = {odd ? size_t{0} : size_t{8}};
    r = nexar_allreduce_bucketed(bufs, counts, 1, NEXAR_INT32, NEXAR_SUM, g_world);
    words = {"count 0", "count 8"};
  } else if (what == "count_empty") {  // an empty call (legal) against a non-empty one
    r = nexar_allgather(in.data(), out.data(), odd ? 0 : 4, NEXAR_INT32, g_world);
    words = {"count 0", "count 4"};
  } else if (what == "destroy") {  // one rank destroys the world while the others wait in a barrier
    // At np 2, after a barrier that passed through the collective queue (an ibarrier: its
    // call words are kept per kind, comm/call_words.h), which the closing barrier must not
    // reuse. (With more ranks a rank could still be in that barrier when the others already
    // saw the mismatch, and rightly fail it.)
    if (g_size == 2) {
      nexar_request_t rq = nullptr;
      E2E_OK(nexar_ibarrier(g_world, &rq));
      E2E_OK(nexar_wait(rq));
    }
    if (odd) {
      r = nexar_comm_destroy(g_world);  // frees g_world in any case: its detail is under NULL
      msg_after_wait = nexar_comm_last_error(nullptr);
    } else {
      r = nexar_barrier(g_world);
    }
    words = {"nexar_comm_destroy (its closing barrier)", "barrier()"};
  } else if (what == "kind") {
    r = odd ? nexar_broadcast(in.data(), 8, NEXAR_INT32, 0, g_world)
            : nexar_allreduce(in.data(), out.data(), 8, NEXAR_INT32, NEXAR_SUM, g_world);
    words = {"broadcast", "allreduce"};
  } else if (what == "order") {  // non-blocking, issued in different orders
    nexar_request_t reqs[2];
    std::vector<int32_t> out2(16 * static_cast<size_t>(g_size));
    nexar_result_t second;
    if (odd) {
      E2E_OK(nexar_iallgather(in.data(), out2.data(), 4, NEXAR_INT32, g_world, &reqs[0]));
      second = nexar_iallreduce(in.data(), out.data(), 8, NEXAR_INT32, NEXAR_SUM, g_world, &reqs[1]);
    } else {
      E2E_OK(nexar_iallreduce(in.data(), out.data(), 8, NEXAR_INT32, NEXAR_SUM, g_world, &reqs[0]));
      second = nexar_iallgather(in.data(), out2.data(), 4, NEXAR_INT32, g_world, &reqs[1]);
    }
    // The other ranks' first calls can reveal the mismatch before this rank posts its second
    // one: that post then finds the communicator unusable (ABORTED), and the first request
    // carries the mismatch.
    if (second == NEXAR_SUCCESS) {
      r = nexar_waitall(2, reqs);
    } else {
      E2E_CHECK(second == NEXAR_ERR_ABORTED, std::string("the second post returned ") + nexar_result_string(second));
      r = nexar_wait(reqs[0]);
    }
    words = {"allgather", "allreduce"};
    // nexar_wait has no communicator argument: its failure's detail is where the API keeps
    // the detail of calls without one (nexar_comm_last_error(NULL)), not under g_world.
    msg_after_wait = nexar_comm_last_error(nullptr);
  } else {
    fail_at(__FILE__, __LINE__, "unknown mismatch '" + what + "'");
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string msg = msg_after_wait.empty() ? nexar_comm_last_error(g_world) : msg_after_wait;
  // A rank that completed the call although another rank disagreed: it learns at its
  // next call. Reported as "late"; the test driver accepts none.
  const char* how = "at the call";
  const bool freed = what == "destroy" && odd;  // g_world is gone: no call may name it
  if (r == NEXAR_SUCCESS && !freed) {
    r = nexar_barrier(g_world);
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    msg = nexar_comm_last_error(g_world);
    how = "late (the call succeeded, the next one failed)";
    E2E_CHECK(r == NEXAR_ERR_ABORTED || r == NEXAR_ERR_MISMATCH,
              "mismatch:" + what + " succeeded and so did the next call (" + nexar_result_string(r) + ")");
  } else {
    E2E_CHECK(r == NEXAR_ERR_MISMATCH, "mismatch:" + what + " returned " + nexar_result_string(r) + " after " +
                                           std::to_string(s) + " s");
    if (!freed) E2E_CHECK(nexar_barrier(g_world) == NEXAR_ERR_ABORTED, "the communicator should be unusable");
  }
  for (const char* w : words) E2E_CHECK(msg.find(w) != std::string::npos, "message '" + msg + "' does not name " + w);
  E2E_CHECK(s < 5.0, "took " + std::to_string(s) + " s");
  std::printf("rank %d: mismatch:%s ok %s after %.3f s: %s\n", g_rank, what.c_str(), how, s, msg.c_str());
  std::fflush(stdout);
  if (!freed) nexar_comm_destroy(g_world);  // fails (the communicator is broken); frees it anyway
  std::exit(0);
}

}  // namespace e2e
