// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A blocking call that passed its checks is remembered with its arguments
// (comm/passed_call.h, on communicators of any size): the same call with any one argument
// made wrong must still be refused on every rank, naming it, and write nothing, and the
// right call still give the right result after it. A revoked or aborted communicator
// refuses the calls that passed before.
#include <algorithm>
#include <cstdint>
#include <string>

#include "e2e_probe.h"

namespace e2e {

void refused_after_passing(nexar_comm_t c) {
  int size = 0;
  E2E_OK(nexar_comm_size(c, &size));
  // Every rank passes the same values, so the MAX of them is in on any number of ranks.
  int32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
  const auto right = [&] { return nexar_allreduce(in, out, 8, NEXAR_INT32, NEXAR_MAX, c); };
  const auto expect = [&](nexar_result_t got, const char* word, const std::string& call) {
    const std::string msg = nexar_comm_last_error(c);
    E2E_CHECK(got == NEXAR_ERR_INVALID_ARGUMENT, call + " after a passing call returned " + nexar_result_string(got));
    E2E_CHECK(msg.find(word) != std::string::npos, call + ": message '" + msg + "' does not name " + word);
    for (int32_t v : out) E2E_CHECK(v == -1, call + " wrote its output");
  };
  const auto after_right = [&](const char* word, const std::string& call, auto wrong) {
    E2E_OK(right());
    for (int i = 0; i < 8; ++i) E2E_CHECK(out[i] == in[i], "allreduce MAX: element " + std::to_string(i));
    std::fill(out, out + 8, -1);
    expect(wrong(), word, call);
  };
  after_right("sendbuf", "sendbuf NULL", [&] { return nexar_allreduce(nullptr, out, 8, NEXAR_INT32, NEXAR_MAX, c); });
  after_right("recvbuf", "recvbuf NULL", [&] { return nexar_allreduce(in, nullptr, 8, NEXAR_INT32, NEXAR_MAX, c); });
  after_right("count", "count SIZE_MAX / 2",
              [&] { return nexar_allreduce(in, out, SIZE_MAX / 2, NEXAR_INT32, NEXAR_MAX, c); });
  after_right("dtype", "dtype 99",
              [&] { return nexar_allreduce(in, out, 8, static_cast<nexar_dtype_t>(99), NEXAR_MAX, c); });
  after_right("op", "op 42", [&] { return nexar_allreduce(in, out, 8, NEXAR_INT32, static_cast<nexar_op_t>(42), c); });
  // The same buffers, count, dtype and op under another kind, whose root is wrong.
  const std::string past = "reduce root " + std::to_string(size);
  after_right("root", past, [&] { return nexar_reduce(in, out, 8, NEXAR_INT32, NEXAR_MAX, size, c); });
  E2E_OK(nexar_reduce(in, out, 8, NEXAR_INT32, NEXAR_MAX, 0, c));
  std::fill(out, out + 8, -1);
  expect(nexar_reduce(in, out, 8, NEXAR_INT32, NEXAR_MAX, -1, c), "root", "reduce root -1 after root 0");
  // A barrier between two calls (as a benchmark's loop) leaves the allreduce remembered.
  E2E_OK(nexar_barrier(c));
  after_right("recvbuf", "recvbuf NULL after a barrier",
              [&] { return nexar_allreduce(in, nullptr, 8, NEXAR_INT32, NEXAR_MAX, c); });
  E2E_OK(right());
}

// A revoked and an aborted communicator refuse a loop's calls that passed before: each
// kind, called twice on the same buffers (so its arguments and its algorithm are
// remembered), then once more after the revocation or the abort.
void refused_once_broken() {
  nexar_comm_t revoked = nullptr, aborted = nullptr;
  E2E_OK(nexar_comm_dup(g_world, &revoked));
  E2E_OK(nexar_comm_dup(g_world, &aborted));
  for (nexar_comm_t c : {revoked, aborted})
    for (int round = 0; round < 2; ++round)
      for (nexar_result_t r : every_call(c, 2)) E2E_CHECK(r == NEXAR_SUCCESS, nexar_result_string(r));
  E2E_OK(nexar_comm_revoke(revoked));
  every_call_fails(revoked, NEXAR_ERR_REVOKED, "revoked", 2);
  E2E_OK(nexar_comm_abort(aborted));
  every_call_fails(aborted, NEXAR_ERR_ABORTED, "abort", 2);
  nexar_comm_destroy(revoked);  // fail (revoked, aborted) and free them anyway
  nexar_comm_destroy(aborted);
}

void scenario_passed_call() {
  refused_after_passing(g_world);
  refused_once_broken();
}

}  // namespace e2e
