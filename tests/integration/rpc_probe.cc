// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the remote procedure call tests: `rpc_probe all|dead` under nexrun.
// `all`: every rank calls every rank (itself too) at once, errors by name, a target that
// is outside any nexar call, and the C++ wrapper on a split communicator. `dead` (2 ranks,
// nexrun --no-kill): rank 1's handler exits the process; rank 0's call gets
// NEXAR_ERR_PEER_LOST. Each check exits non-zero with a message naming what differed.
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>

#include "nexar/nexar.hpp"
#include "probe_util.h"

using probe::g_rank;
using probe::g_world;

namespace {

enum : uint32_t { kEcho = 1, kFail = 2, kFlag = 3, kExit = 4 };

std::atomic<bool> g_flag_served{false};

// Result: the target's rank, the caller's rank, then the arguments.
nexar_result_t echo(void* user, int caller, const void* args, size_t n, nexar_rpc_reply_t reply) {
  std::string out(2, '\0');
  out[0] = static_cast<char>(*static_cast<int*>(user));
  out[1] = static_cast<char>(caller);
  out.append(static_cast<const char*>(args), n);
  return nexar_rpc_reply_set(reply, out.data(), out.size());
}

nexar_result_t fail(void*, int, const void*, size_t, nexar_rpc_reply_t) { return NEXAR_ERR_MISMATCH; }

nexar_result_t flag(void*, int, const void*, size_t, nexar_rpc_reply_t) {
  g_flag_served = true;
  return NEXAR_SUCCESS;
}

nexar_result_t exit_now(void*, int, const void*, size_t, nexar_rpc_reply_t) { _exit(7); }

void all(int size) {
  static int me = g_rank;
  PROBE_OK(nexar_rpc_register(g_world, kEcho, echo, &me));
  PROBE_OK(nexar_rpc_register(g_world, kFail, fail, nullptr));
  PROBE_OK(nexar_rpc_register(g_world, kFlag, flag, nullptr));
  PROBE_CHECK(nexar_rpc_register(g_world, kEcho, echo, &me) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_OK(nexar_barrier(g_world));

  // Every rank calls every rank at once, itself included.
  std::vector<nexar_request_t> reqs(static_cast<size_t>(size));
  std::vector<std::string> out(static_cast<size_t>(size), std::string(64, '\0'));
  std::vector<size_t> got(static_cast<size_t>(size));
  const std::string args = "args from " + std::to_string(g_rank);
  for (int t = 0; t < size; ++t)
    PROBE_OK(nexar_rpc_icall(g_world, t, kEcho, args.data(), args.size(), out[t].data(), out[t].size(), &got[t], &reqs[t]));
  PROBE_OK(nexar_waitall(reqs.size(), reqs.data()));
  for (int t = 0; t < size; ++t) {
    PROBE_CHECK(got[t] == args.size() + 2);
    PROBE_CHECK(out[t][0] == t && out[t][1] == g_rank);
    PROBE_CHECK(out[t].compare(2, args.size(), args) == 0);
  }

  // Errors by name.
  const int next = (g_rank + 1) % size;
  char small[4];
  size_t n = 0;
  PROBE_CHECK(nexar_rpc_call(g_world, next, 99, nullptr, 0, small, sizeof small, &n) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(std::strstr(nexar_comm_last_error(g_world), "no RPC function 99") != nullptr);
  PROBE_CHECK(nexar_rpc_call(g_world, next, kEcho, "0123456789", 10, small, sizeof small, &n) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(n == 12);
  PROBE_CHECK(nexar_rpc_call(g_world, next, kFail, nullptr, 0, nullptr, 0, &n) == NEXAR_ERR_MISMATCH);
  PROBE_CHECK(nexar_rpc_call(g_world, size, kEcho, nullptr, 0, nullptr, 0, &n) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_OK(nexar_barrier(g_world));

  // Rank 1 stays outside nexar until rank 0's call has run its handler there.
  if (g_rank == 1) {
    const auto t0 = std::chrono::steady_clock::now();
    while (!g_flag_served && probe::seconds_since(t0) < 30) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    PROBE_CHECK(g_flag_served);
  } else if (g_rank == 0) {
    PROBE_OK(nexar_rpc_call(g_world, 1, kFlag, nullptr, 0, nullptr, 0, nullptr));
  }
  PROBE_OK(nexar_barrier(g_world));

  // The C++ wrapper on a split communicator whose ranks run in reverse world order.
  {
    nexar_comm_t split = nullptr;
    PROBE_OK(nexar_comm_split(g_world, 0, size - g_rank, &split));
    nexar::Communicator rev(split);
    rev.rpc_register(kEcho, [&](int caller, std::span<const uint8_t> a) {
      std::vector<uint8_t> r(a.begin(), a.end());
      r.push_back(static_cast<uint8_t>(caller));
      if (a.size() == 1 && a[0] == 0xEE) throw nexar::Error(NEXAR_ERR_UNSUPPORTED, "not this one");
      return r;
    });
    rev.barrier();
    const int target = (rev.rank() + 1) % rev.size();
    const uint8_t a[3] = {1, 2, 3};
    std::vector<uint8_t> r = rev.rpc_call(target, kEcho, a);
    PROBE_CHECK(r == (std::vector<uint8_t>{1, 2, 3, static_cast<uint8_t>(rev.rank())}));
    try {
      const uint8_t bad = 0xEE;
      rev.rpc_call(target, kEcho, std::span<const uint8_t>(&bad, 1));
      PROBE_CHECK(false);
    } catch (const nexar::Error& e) {
      PROBE_CHECK(e.code() == NEXAR_ERR_UNSUPPORTED);
    }
    rev.barrier();
  }
  std::printf("rank %d: rpc ok\n", g_rank);
  PROBE_OK(nexar_comm_destroy(g_world));
}

void dead() {
  PROBE_OK(nexar_rpc_register(g_world, kExit, exit_now, nullptr));
  PROBE_OK(nexar_barrier(g_world));
  if (g_rank == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const nexar_result_t r = nexar_rpc_call(g_world, 1, kExit, nullptr, 0, nullptr, 0, nullptr);
    PROBE_CHECK(r == NEXAR_ERR_PEER_LOST);
    std::printf("rank 0: dead ok after %.2f s: %s\n", probe::seconds_since(t0), nexar_comm_last_error(g_world));
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(30));  // the handler ends this process first
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  int size = 0;
  PROBE_OK(nexar_comm_size(g_world, &size));
  if (mode == "all") {
    all(size);
    return 0;
  }
  if (mode == "dead") {
    dead();
    return 0;
  }
  std::fprintf(stderr, "usage: rpc_probe all|dead\n");
  return 2;
}
