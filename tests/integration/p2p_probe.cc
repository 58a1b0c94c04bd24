// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the point-to-point integration tests: `p2p_probe <scenario>` under
// nexrun. basic, sizes, errors and timeout print what they received and every result with
// its error text, which the tests check (p2p_expect.h); the other scenarios check their own
// results against data computed locally and exit non-zero with a message on any difference.
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include <string>
#include <thread>

#include "probe_util.h"

using probe::g_rank;
using probe::g_world;
using probe::pattern;

namespace {

int g_size = 0;

void fill(std::vector<unsigned char>& b, int sender, int msg) {
  for (size_t i = 0; i < b.size(); ++i) b[i] = pattern(sender, msg, i);
}
bool verify(const std::vector<unsigned char>& b, size_t n, int sender, int msg) {
  for (size_t i = 0; i < n; ++i)
    if (b[i] != pattern(sender, msg, i)) {
      std::fprintf(stderr, "rank %d: byte %zu of message %d from rank %d differs\n", g_rank, i, msg, sender);
      return false;
    }
  return true;
}

// Token around the ring, a self-send, ranks and local ranks.
void basic() {
  int local_rank, local_size;
  PROBE_OK(nexar_comm_local_rank(g_world, &local_rank));
  PROBE_OK(nexar_comm_local_size(g_world, &local_size));
  int64_t token = g_rank == 0 ? 1000 : -1;
  if (g_size > 1) {
    if (g_rank == 0) {
      PROBE_OK(nexar_send(&token, 1, NEXAR_INT64, 1, 7, g_world));
      PROBE_OK(nexar_recv(&token, 1, NEXAR_INT64, g_size - 1, 7, g_world));
    } else {
      PROBE_OK(nexar_recv(&token, 1, NEXAR_INT64, g_rank - 1, 7, g_world));
      ++token;
      PROBE_OK(nexar_send(&token, 1, NEXAR_INT64, (g_rank + 1) % g_size, 7, g_world));
    }
  }
  int32_t self_in = 42 + g_rank, self_out = 0;
  nexar_request_t r;
  PROBE_OK(nexar_isend(&self_in, 1, NEXAR_INT32, g_rank, 3, g_world, &r));
  PROBE_OK(nexar_recv(&self_out, 1, NEXAR_INT32, g_rank, 3, g_world));
  PROBE_OK(nexar_wait(r));
  PROBE_OK(nexar_barrier(g_world));
  PROBE_OK(nexar_ibarrier(g_world, &r));
  PROBE_OK(nexar_wait(r));
  std::printf("rank %d of %d: basic ok token %lld self %d local %d of %d\n", g_rank, g_size,
              static_cast<long long>(token), self_out, local_rank, local_size);
}

// Every rank sends to the next and receives from the previous, at every size.
void sizes() {
  const size_t sizes[] = {0, 1, 7, 1000, 65535, 65536, 65537, 1 << 20, (64u << 20) + 3};
  int msg = 0;
  for (size_t n : sizes) {
    std::vector<unsigned char> out(n), in(n + 16, 0xee);
    fill(out, g_rank, msg);
    const int to = (g_rank + 1) % g_size, from = (g_rank + g_size - 1) % g_size;
    nexar_request_t reqs[2];
    PROBE_OK(nexar_irecv(in.data(), n + 16, NEXAR_UINT8, from, msg, g_world, &reqs[0]));
    PROBE_OK(nexar_isend(out.data(), n, NEXAR_UINT8, to, msg, g_world, &reqs[1]));
    PROBE_OK(nexar_waitall(2, reqs));
    bool rest_untouched = true;
    for (size_t i = n; i < n + 16; ++i) rest_untouched = rest_untouched && in[i] == 0xee;
    std::printf("rank %d: sizes message %d from %d: %zu bytes fnv %016llx, the rest %s\n", g_rank, msg, from, n,
                static_cast<unsigned long long>(probe::fnv1a(in.data(), n)), rest_untouched ? "untouched" : "WRITTEN");
    ++msg;
  }
  std::printf("rank %d: sizes ok\n", g_rank);
}

// Messages between a pair with one tag arrive in the order sent, mixing small and large;
// ANY_TAG and ANY_SOURCE take them in order too.
void order() {
  const int kMsgs = 300;
  if (g_rank == 0) {
    std::vector<std::vector<unsigned char>> bufs(kMsgs);
    std::vector<nexar_request_t> reqs(kMsgs);
    for (int i = 0; i < kMsgs; ++i) {
      bufs[i].resize(i % 10 == 0 ? 200000 + i : 16 + i);
      fill(bufs[i], 0, i);
      PROBE_OK(nexar_isend(bufs[i].data(), bufs[i].size(), NEXAR_UINT8, 1, i % 3, g_world, &reqs[i]));
    }
    PROBE_OK(nexar_waitall(reqs.size(), reqs.data()));
  } else if (g_rank == 1) {
    // Tag 2 first (all of them, in order), then ANY_TAG for the rest.
    std::vector<unsigned char> in(300000);
    for (int i = 2; i < kMsgs; i += 3) {
      PROBE_OK(nexar_recv(in.data(), in.size(), NEXAR_UINT8, 0, 2, g_world));
      PROBE_CHECK(verify(in, i % 10 == 0 ? 200000 + i : 16 + i, 0, i));
    }
    for (int i = 0; i < kMsgs; ++i) {
      if (i % 3 == 2) continue;
      PROBE_OK(nexar_recv(in.data(), in.size(), NEXAR_UINT8, NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, g_world));
      PROBE_CHECK(verify(in, i % 10 == 0 ? 200000 + i : 16 + i, 0, i));
    }
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: order ok\n", g_rank);
}

// Rank 0 sends far more than the unexpected store may hold before rank 1 posts anything:
// the sender is held back, nothing is lost, memory stays bounded.
void unexpected() {
  const int kMsgs = 48;
  const size_t n = 1 << 20;
  if (g_rank == 0) {
    std::vector<std::vector<unsigned char>> bufs(kMsgs, std::vector<unsigned char>(n));
    std::vector<nexar_request_t> reqs(kMsgs);
    for (int i = 0; i < kMsgs; ++i) {
      fill(bufs[i], 0, i);
      PROBE_OK(nexar_isend(bufs[i].data(), n, NEXAR_UINT8, 1, 5, g_world, &reqs[i]));
    }
    for (int i = 0; i < 64; ++i) {  // small ones too, inline on the control stream
      int32_t v = i;
      PROBE_OK(nexar_send(&v, 1, NEXAR_INT32, 1, 6, g_world));
    }
    PROBE_OK(nexar_waitall(reqs.size(), reqs.data()));
  } else if (g_rank == 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    std::vector<unsigned char> in(n);
    for (int i = 0; i < 64; ++i) {
      int32_t v = -1;
      PROBE_OK(nexar_recv(&v, 1, NEXAR_INT32, 0, 6, g_world));
      PROBE_CHECK(v == i);
    }
    for (int i = 0; i < kMsgs; ++i) {
      PROBE_OK(nexar_recv(in.data(), n, NEXAR_UINT8, 0, 5, g_world));
      PROBE_CHECK(verify(in, n, 0, i));
    }
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: unexpected ok\n", g_rank);
}

// Large messages whose receives are posted before they arrive (a transport may write them
// straight into the receive's memory): a 4 MiB one whole, one longer than its receive
// (that receive fails, nothing of it is written, the stream goes on), one scattered over
// three regions, then a small one behind them. Rank 1 posts, then tells rank 0 to send.
void placed() {
  const size_t a_len = (4u << 20) + 3, b_len = 300000, b_cap = 100000, c_len = (1u << 20) + 5;
  if (g_rank == 0) {
    std::vector<unsigned char> a(a_len), b(b_len), c(c_len);
    fill(a, 0, 1);
    fill(b, 0, 2);
    fill(c, 0, 3);
    int32_t go = 0;
    PROBE_OK(nexar_recv(&go, 1, NEXAR_INT32, 1, 10, g_world));
    PROBE_OK(nexar_send(a.data(), a_len, NEXAR_UINT8, 1, 11, g_world));
    PROBE_OK(nexar_send(b.data(), b_len, NEXAR_UINT8, 1, 12, g_world));
    PROBE_OK(nexar_send(c.data(), c_len, NEXAR_UINT8, 1, 13, g_world));
    int32_t d = 77;
    PROBE_OK(nexar_send(&d, 1, NEXAR_INT32, 1, 14, g_world));
  } else if (g_rank == 1) {
    std::vector<unsigned char> a(a_len), b(b_cap, 0xee), c(c_len), c1(1000), c2(500000), c3(c_len - 501000);
    nexar_request_t reqs[2];
    PROBE_OK(nexar_irecv(a.data(), a_len, NEXAR_UINT8, 0, 11, g_world, &reqs[0]));
    PROBE_OK(nexar_irecv(b.data(), b_cap, NEXAR_UINT8, 0, 12, g_world, &reqs[1]));
    // The scattering receive blocks: another thread posts it before rank 0 is told to send
    // (were it late, the message would wait as unexpected: still exact, another path).
    nexar_result_t rc = NEXAR_ERR_INTERNAL;
    std::thread scatter([&] {
      const nexar_iovec_t iov[3] = {{c1.data(), c1.size()}, {c2.data(), c2.size()}, {c3.data(), c3.size()}};
      rc = nexar_recvv(iov, 3, 0, 13, g_world, nullptr);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    int32_t go = 1;
    PROBE_OK(nexar_send(&go, 1, NEXAR_INT32, 0, 10, g_world));
    PROBE_OK(nexar_wait(reqs[0]));
    PROBE_CHECK(verify(a, a_len, 0, 1));
    const nexar_result_t rb = nexar_wait(reqs[1]);
    PROBE_CHECK(rb == NEXAR_ERR_INVALID_ARGUMENT);
    for (unsigned char x : b) PROBE_CHECK(x == 0xee);
    scatter.join();
    PROBE_OK(rc);
    std::copy(c1.begin(), c1.end(), c.begin());
    std::copy(c2.begin(), c2.end(), c.begin() + 1000);
    std::copy(c3.begin(), c3.end(), c.begin() + 501000);
    PROBE_CHECK(verify(c, c_len, 0, 3));
    int32_t d = 0;
    PROBE_OK(nexar_recv(&d, 1, NEXAR_INT32, 0, 14, g_world));
    PROBE_CHECK(d == 77);
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: placed ok\n", g_rank);
}

// One call's result and the communicator's last error, for the test to check.
void said(const char* what, nexar_result_t r, nexar_comm_t comm) {
  std::printf("rank %d: errors: %s -> %s: %s\n", g_rank, what, nexar_result_string(r), nexar_comm_last_error(comm));
}

// Local errors name what was wrong and leave the communicator usable.
void errors() {
  char b[8] = {0};
  said("send to rank size", nexar_send(b, 1, NEXAR_UINT8, g_size, 0, g_world), g_world);
  said("send NULL", nexar_send(nullptr, 4, NEXAR_UINT8, 0, 0, g_world), g_world);
  said("send dtype 99", nexar_send(b, 1, static_cast<nexar_dtype_t>(99), 0, 0, g_world), g_world);
  said("send tag -5", nexar_send(b, 1, NEXAR_UINT8, 0, -5, g_world), g_world);
  said("recv from rank -7", nexar_recv(b, 1, NEXAR_UINT8, -7, 0, g_world), g_world);
  said("set_timeout -1", nexar_comm_set_timeout(g_world, -1), g_world);
  // Counts no address space can hold (issue 19: SIZE_MAX/16 crashed in shared memory).
  const int next = (g_rank + 1) % g_size;
  nexar_request_t req = nullptr;
  said("send SIZE_MAX/16", nexar_send(b, SIZE_MAX / 16, NEXAR_INT8, next, 0, g_world), g_world);
  said("recv SIZE_MAX/16", nexar_recv(b, SIZE_MAX / 16, NEXAR_INT8, next, 0, g_world), g_world);
  said("isend SIZE_MAX/2", nexar_isend(b, SIZE_MAX / 2, NEXAR_INT8, next, 0, g_world, &req), g_world);
  said("irecv SIZE_MAX/16 float64", nexar_irecv(b, SIZE_MAX / 16, NEXAR_FLOAT64, next, 0, g_world, &req), g_world);
  std::printf("rank %d: errors: request after refusals %s\n", g_rank, req == nullptr ? "NULL" : "SET");
  // A destroyed communicator: every call says so (issue 19: a use after free), and its
  // last error went with it.
  nexar_comm_t dup = nullptr;
  PROBE_OK(nexar_comm_dup(g_world, &dup));
  said("dup: send to rank size", nexar_send(b, 1, NEXAR_UINT8, g_size, 0, dup), dup);
  said("dup: destroy", nexar_comm_destroy(dup), dup);
  int x = -1;
  said("destroyed: allreduce", nexar_allreduce(b, b, 1, NEXAR_UINT8, NEXAR_SUM, dup), dup);
  said("destroyed: send", nexar_send(b, 1, NEXAR_UINT8, 0, 0, dup), dup);
  said("destroyed: comm_rank", nexar_comm_rank(dup, &x), dup);
  std::printf("rank %d: errors: destroyed: comm_rank left %d\n", g_rank, x);
  said("destroyed: revoke", nexar_comm_revoke(dup), dup);
  said("destroyed: destroy", nexar_comm_destroy(dup), dup);
  // A message longer than the posted receive.
  if (g_size > 1) {
    if (g_rank == 0) {
      int64_t big[4] = {1, 2, 3, 4};
      PROBE_OK(nexar_send(big, 4, NEXAR_INT64, 1, 9, g_world));
    } else if (g_rank == 1) {
      int64_t small[2];
      said("recv 2 of 4 int64", nexar_recv(small, 2, NEXAR_INT64, 0, 9, g_world), g_world);
    }
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: errors ok\n", g_rank);
}

// A receive nobody answers times out with a message; the communicator is then unusable.
void timeout() {
  if (g_rank == 1) {
    PROBE_OK(nexar_comm_set_timeout(g_world, 1.0));
    int v;
    auto t0 = std::chrono::steady_clock::now();
    nexar_result_t r = nexar_recv(&v, 1, NEXAR_INT32, 0, 77, g_world);
    double s = probe::seconds_since(t0);
    std::printf("rank %d: timeout: recv -> %s after %.2f s: %s\n", g_rank, nexar_result_string(r), s,
                nexar_comm_last_error(g_world));
    std::printf("rank %d: timeout: barrier then -> %s\n", g_rank, nexar_result_string(nexar_barrier(g_world)));
  }
  // Other ranks learn that rank 1 gave up: their barrier fails instead of hanging.
  if (g_rank != 1) {
    PROBE_OK(nexar_comm_set_timeout(g_world, 30.0));
    auto t0 = std::chrono::steady_clock::now();
    nexar_result_t r = nexar_barrier(g_world);
    std::printf("rank %d: timeout: barrier -> %s after %.2f s: %s\n", g_rank, nexar_result_string(r),
                probe::seconds_since(t0), nexar_comm_last_error(g_world));
  }
  nexar_comm_destroy(g_world);
  std::exit(0);
}

// Rank 1 stops itself (SIGSTOP, not dead: no exit to see, and NEXAR_PEER_TIMEOUT is far);
// rank 0's receive times out, then its destroy of the broken world returns at once
// instead of waiting a timeout again for rank 1's goodbye (issue 19). Rank 0 then kills rank 1.
void stopped_destroy() {
  int32_t pid = static_cast<int32_t>(getpid());
  if (g_rank == 1) {
    PROBE_OK(nexar_send(&pid, 1, NEXAR_INT32, 0, 5, g_world));
    PROBE_OK(nexar_recv(&pid, 1, NEXAR_INT32, 0, 5, g_world));  // rank 0 has the pid: a sent
    raise(SIGSTOP);                                              // message may still be queued
    std::exit(3);  // not reached: rank 0 kills it
  }
  if (g_rank != 0) std::exit(0);
  int32_t peer_pid = 0;
  PROBE_OK(nexar_recv(&peer_pid, 1, NEXAR_INT32, 1, 5, g_world));
  PROBE_OK(nexar_send(&peer_pid, 1, NEXAR_INT32, 1, 5, g_world));
  PROBE_OK(nexar_comm_set_timeout(g_world, 3.0));
  int32_t v;
  PROBE_CHECK(nexar_recv(&v, 1, NEXAR_INT32, 1, 6, g_world) == NEXAR_ERR_TIMEOUT);
  auto t0 = std::chrono::steady_clock::now();
  nexar_result_t r = nexar_comm_destroy(g_world);
  const double s = probe::seconds_since(t0);
  std::printf("rank 0: destroy %s after %.2f s\n", nexar_result_string(r), s);
  kill(peer_pid, SIGKILL);
  PROBE_CHECK(s < 1.5);  // the goodbye wait would take the 3 s timeout
  std::printf("rank %d: stopped_destroy ok\n", g_rank);
  std::fflush(stdout);
  std::exit(0);
}

// Three non-blocking allreduces queued at once; rank 1 joins the first two 2 s late each.
// Each runs under 3.5 s, the last ends some 4 s after it was queued: nexar_wait counts
// the time a collective runs, not the time it sat queued (issue 19: this was TIMEOUT).
void queued_wait() {
  PROBE_OK(nexar_comm_set_timeout(g_world, 3.5));
  int32_t in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
  if (g_rank == 1) {
    for (int i = 0; i < 3; ++i) {
      if (i < 2) std::this_thread::sleep_for(std::chrono::seconds(2));
      PROBE_OK(nexar_allreduce(&in[i], &out[i], 1, NEXAR_INT32, NEXAR_SUM, g_world));
    }
  } else {
    nexar_request_t req[3];
    for (int i = 0; i < 3; ++i) PROBE_OK(nexar_iallreduce(&in[i], &out[i], 1, NEXAR_INT32, NEXAR_SUM, g_world, &req[i]));
    PROBE_OK(nexar_wait(req[2]));
    PROBE_OK(nexar_wait(req[0]));
    PROBE_OK(nexar_wait(req[1]));
  }
  for (int i = 0; i < 3; ++i) PROBE_CHECK(out[i] == 2 * in[i]);
  std::printf("rank %d: queued_wait ok\n", g_rank);
}

// Idle for longer than the peer timeout: keep-alives keep the connections up.
void idle() {
  std::this_thread::sleep_for(std::chrono::seconds(4));
  int32_t v = g_rank, got = -1;
  const int to = (g_rank + 1) % g_size, from = (g_rank + g_size - 1) % g_size;
  nexar_request_t r;
  PROBE_OK(nexar_irecv(&got, 1, NEXAR_INT32, from, 1, g_world, &r));
  PROBE_OK(nexar_send(&v, 1, NEXAR_INT32, to, 1, g_world));
  PROBE_OK(nexar_wait(r));
  PROBE_CHECK(got == from);
  std::printf("rank %d: idle ok\n", g_rank);
}

// A message above 4 GiB, rank 0 to rank 1.
void huge() {
  const size_t n = (size_t{4} << 30) + 4099;
  if (g_rank == 0) {
    std::vector<unsigned char> out(n);
    for (size_t i = 0; i < n; i += 4096) out[i] = static_cast<unsigned char>(i >> 12);
    out[n - 1] = 0x5a;
    PROBE_OK(nexar_send(out.data(), n, NEXAR_UINT8, 1, 1, g_world));
  } else if (g_rank == 1) {
    std::vector<unsigned char> in(n);
    PROBE_OK(nexar_recv(in.data(), n, NEXAR_UINT8, 0, 1, g_world));
    for (size_t i = 0; i < n; i += 4096) PROBE_CHECK(in[i] == static_cast<unsigned char>(i >> 12));
    PROBE_CHECK(in[n - 1] == 0x5a);
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: huge ok\n", g_rank);
}

// The last rank dies; every other rank's operations that need it fail with PEER_LOST.
void peer_lost() {
  PROBE_OK(nexar_barrier(g_world));
  const int victim = g_size - 1;
  // The victim dies only once every other rank is past the barrier (each tells it so).
  int32_t past = 1;
  if (g_rank == victim) {
    for (int i = 0; i < g_size - 1; ++i) PROBE_OK(nexar_recv(&past, 1, NEXAR_INT32, NEXAR_ANY_SOURCE, 8, g_world));
    std::fflush(stdout);
    raise(SIGKILL);
  }
  PROBE_OK(nexar_send(&past, 1, NEXAR_INT32, victim, 8, g_world));
  auto t0 = std::chrono::steady_clock::now();
  int v;
  nexar_result_t r = g_rank == 0 ? nexar_recv(&v, 1, NEXAR_INT32, victim, 1, g_world) : nexar_barrier(g_world);
  double s = probe::seconds_since(t0);
  std::printf("rank %d: peer_lost %s after %.2f s: %s\n", g_rank, nexar_result_string(r), s,
              nexar_comm_last_error(g_world));
  PROBE_CHECK(r == NEXAR_ERR_PEER_LOST);
  PROBE_CHECK(nexar_send(&v, 1, NEXAR_INT32, 0, 1, g_world) == NEXAR_ERR_ABORTED);
  nexar_comm_destroy(g_world);
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: p2p_probe basic|sizes|order|unexpected|placed|errors|timeout|idle|huge|peer_lost|stopped_destroy|queued_wait\n");
    return 2;
  }
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  const std::string s = argv[1];
  if (s == "basic") basic();
  else if (s == "sizes") sizes();
  else if (s == "order") order();
  else if (s == "unexpected") unexpected();
  else if (s == "placed") placed();
  else if (s == "errors") errors();
  else if (s == "timeout") timeout();
  else if (s == "idle") idle();
  else if (s == "huge") huge();
  else if (s == "peer_lost") peer_lost();
  else if (s == "stopped_destroy") stopped_destroy();
  else if (s == "queued_wait") queued_wait();
  else {
    std::fprintf(stderr, "unknown scenario %s\n", s.c_str());
    return 2;
  }
  PROBE_OK(nexar_comm_destroy(g_world));
  return 0;
}
