// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar-p2p-bench: ping-pong between ranks 0 and 1 over whatever transport joins them.
//   nexrun -np 2 nexar-p2p-bench [-b MIN] [-e MAX] [-f FACTOR] [-t SECONDS-PER-SIZE]
//                                [-v REGIONS [-m sendv|packed]] [-r]
// -v: each message is REGIONS equal regions of the buffers, sent with nexar_sendv and
// received with nexar_recvv (-m sendv), or packed into a contiguous copy, sent, received
// and unpacked by hand (-m packed), to compare the two.
// -r: beside each size's ping-pong, rank 0 also times remote procedure calls to rank 1
// (nexar_rpc_call: the arguments are the message, the handler answers them back) while
// rank 1 waits in a barrier: the median call, and its ratio to the send/recv round trip.
// Method (../shared/design/BENCHMARKS.md): page-aligned buffers touched first, one
// correctness check per size, a warm-up that estimates the cost (agreed by both ranks),
// then K round trips with K = target time / cost clamped to [5, 20000]; each sample is
// one round trip timed on rank 0. Reports the median round trip, half of it as one-way
// latency, and goodput = bytes / (median round trip / 2).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nexar/nexar.h"
#include "tool_check.h"

namespace {

nexar_comm_t world;

void ok(nexar_result_t r, const char* what) { exit_unless_ok("nexar-p2p-bench", r, what, world); }

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

size_t parse_size(const char* s) {
  char* end;
  double v = std::strtod(s, &end);
  switch (*end) {
    case 'K': case 'k': v *= 1024; break;
    case 'M': case 'm': v *= 1024 * 1024; break;
    case 'G': case 'g': v *= 1024.0 * 1024 * 1024; break;
  }
  return static_cast<size_t>(v);
}

// -v / -m: messages split into regions (0: one contiguous buffer).
size_t g_regions = 0;
bool g_packed = false;
std::vector<unsigned char> g_pack;  // the packed copy (-m packed)
bool g_rpc = false;                 // -r

// The benchmark's RPC function: answers its arguments back.
nexar_result_t echo(void*, int, const void* args, size_t n, nexar_rpc_reply_t reply) {
  return nexar_rpc_reply_set(reply, args, n);
}

void rpc_round_trip(unsigned char* sbuf, unsigned char* rbuf, size_t n) {
  size_t got = 0;
  ok(nexar_rpc_call(world, 1, 1, sbuf, n, rbuf, n, &got), "rpc_call");
  if (got != n) {
    std::fprintf(stderr, "nexar-p2p-bench: RPC result of %zu bytes for %zu\n", got, n);
    std::exit(1);
  }
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// buf's n bytes as g_regions regions, each followed by a gap of 64 bytes (buffers are
// allocated with room for them).
std::vector<nexar_iovec_t> regions_of(unsigned char* buf, size_t n) {
  std::vector<nexar_iovec_t> v;
  const size_t each = n / g_regions;
  for (size_t i = 0, off = 0; i < g_regions; ++i) {
    const size_t len = i + 1 == g_regions ? n - each * i : each;
    v.push_back({buf + off, len});
    off += len + 64;
  }
  return v;
}

void send_msg(unsigned char* buf, size_t n, int peer, int tag) {
  if (!g_regions) return ok(nexar_send(buf, n, NEXAR_UINT8, peer, tag, world), "send");
  auto iov = regions_of(buf, n);
  if (!g_packed) return ok(nexar_sendv(iov.data(), iov.size(), peer, tag, world), "sendv");
  size_t off = 0;
  for (const auto& r : iov)
    if (r.bytes) std::memcpy(g_pack.data() + off, r.base, r.bytes), off += r.bytes;
  ok(nexar_send(g_pack.data(), n, NEXAR_UINT8, peer, tag, world), "send");
}

void recv_msg(unsigned char* buf, size_t n, int peer, int tag) {
  if (!g_regions) return ok(nexar_recv(buf, n, NEXAR_UINT8, peer, tag, world), "recv");
  auto iov = regions_of(buf, n);
  if (!g_packed) return ok(nexar_recvv(iov.data(), iov.size(), peer, tag, world, nullptr), "recvv");
  ok(nexar_recv(g_pack.data(), n, NEXAR_UINT8, peer, tag, world), "recv");
  size_t off = 0;
  for (const auto& r : iov)
    if (r.bytes) std::memcpy(const_cast<void*>(r.base), g_pack.data() + off, r.bytes), off += r.bytes;
}

// The byte at offset i of an n-byte message in buf (regions leave gaps).
unsigned char& byte_at(unsigned char* buf, size_t n, size_t i) {
  if (!g_regions) return buf[i];
  const size_t each = n / g_regions;
  const size_t k = each ? std::min(i / each, g_regions - 1) : g_regions - 1;
  return buf[i + 64 * k];
}

// One round trip of n bytes from rank 0's point of view.
void round_trip(int rank, unsigned char* sbuf, unsigned char* rbuf, size_t n) {
  if (g_regions) {
    if (rank == 0) {
      send_msg(sbuf, n, 1, 1);
      recv_msg(rbuf, n, 1, 2);
    } else if (rank == 1) {
      recv_msg(rbuf, n, 0, 1);
      send_msg(rbuf, n, 0, 2);
    }
    return;
  }
  if (rank == 0) {
    ok(nexar_send(sbuf, n, NEXAR_UINT8, 1, 1, world), "send");
    ok(nexar_recv(rbuf, n, NEXAR_UINT8, 1, 2, world), "recv");
  } else if (rank == 1) {
    ok(nexar_recv(rbuf, n, NEXAR_UINT8, 0, 1, world), "recv");
    ok(nexar_send(rbuf, n, NEXAR_UINT8, 0, 2, world), "send");
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t min_b = 8, max_b = 64u << 20;
  double factor = 8, target = 1.0;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 == argc && std::string(argv[i]) != "-r") {
      std::fprintf(stderr, "nexar-p2p-bench: %s needs a value\n", argv[i]);
      return 2;
    }
    std::string a = argv[i];
    if (a == "-b") min_b = parse_size(argv[i + 1]);
    else if (a == "-e") max_b = parse_size(argv[i + 1]);
    else if (a == "-f") factor = std::atof(argv[i + 1]);
    else if (a == "-t") target = std::atof(argv[i + 1]);
    else if (a == "-r") g_rpc = true, --i;
    else if (a == "-v") g_regions = static_cast<size_t>(std::atol(argv[i + 1]));
    else if (a == "-m" && (std::string(argv[i + 1]) == "sendv" || std::string(argv[i + 1]) == "packed"))
      g_packed = std::string(argv[i + 1]) == "packed";
    else {
      std::fprintf(stderr, "usage: nexar-p2p-bench [-b MIN] [-e MAX] [-f FACTOR] [-t SECONDS] [-v REGIONS [-m sendv|packed]] [-r]\n");
      return 2;
    }
  }
  ok(nexar_init(&world), "init");
  int rank, size;
  ok(nexar_comm_rank(world, &rank), "rank");
  ok(nexar_comm_size(world, &size), "size");
  if (size < 2) {
    std::fprintf(stderr, "nexar-p2p-bench needs 2 ranks (nexrun -np 2)\n");
    return 2;
  }
  if (rank == 0 && g_regions)
    std::printf("# %zu regions per message, %s\n", g_regions, g_packed ? "packed copy + send/recv + unpack" : "sendv/recvv");
  if (g_rpc) ok(nexar_rpc_register(world, 1, echo, nullptr), "rpc_register");
  ok(nexar_barrier(world), "barrier");
  if (rank == 0) {
    std::printf("%12s %10s %14s %14s %12s", "bytes", "iters", "rtt_med(us)", "oneway(us)", "GB/s");
    if (g_rpc) std::printf(" %14s %10s", "rpc_med(us)", "rpc/rtt");
    std::printf("\n");
  }
  for (size_t n = min_b; n <= max_b; n = std::max(n + 1, static_cast<size_t>(n * factor))) {
    unsigned char *sbuf = nullptr, *rbuf = nullptr;
    const size_t room = n + 64 * g_regions + 1;
    if (posix_memalign(reinterpret_cast<void**>(&sbuf), 4096, room) ||
        posix_memalign(reinterpret_cast<void**>(&rbuf), 4096, room))
      return 1;
    if (g_packed) g_pack.assign(n, 0);
    for (size_t i = 0; i < n; ++i) byte_at(sbuf, n, i) = static_cast<unsigned char>(i * 7 + 3);
    std::memset(rbuf, 0, room);
    round_trip(rank, sbuf, rbuf, n);  // correctness check
    if (rank == 0)
      for (size_t i = 0; i < n; ++i)
        if (byte_at(rbuf, n, i) != static_cast<unsigned char>(i * 7 + 3)) {
          std::fprintf(stderr, "nexar-p2p-bench: byte %zu of %zu wrong\n", i, n);
          return 1;
        }
    double t0 = now();
    for (int i = 0; i < 2; ++i) round_trip(rank, sbuf, rbuf, n);
    double cost = (now() - t0) / 2;
    // Both ranks must run the same number of iterations: rank 1 takes rank 0's estimate.
    if (rank == 0) ok(nexar_send(&cost, 1, NEXAR_FLOAT64, 1, 9, world), "send cost");
    if (rank == 1) ok(nexar_recv(&cost, 1, NEXAR_FLOAT64, 0, 9, world), "recv cost");
    long warm = std::max(1L, static_cast<long>(0.1 * target / cost));
    long k = std::clamp(static_cast<long>(target / cost), 5L, 20000L);
    for (long i = 0; i < std::min(warm, k); ++i) round_trip(rank, sbuf, rbuf, n);
    std::vector<double> samples;
    for (long i = 0; i < k; ++i) {
      double a = now();
      round_trip(rank, sbuf, rbuf, n);
      samples.push_back(now() - a);
    }
    if (rank == 0) {
      const double med = median(samples);
      std::printf("%12zu %10ld %14.2f %14.2f %12.3f", n, k, med * 1e6, med * 0.5e6, n / (med / 2) / 1e9);
      if (g_rpc) {
        rpc_round_trip(sbuf, rbuf, n);  // warm-up, then the same number of calls
        for (long i = 0; i < std::min(warm, k); ++i) rpc_round_trip(sbuf, rbuf, n);
        std::vector<double> calls;
        for (long i = 0; i < k; ++i) {
          const double a = now();
          rpc_round_trip(sbuf, rbuf, n);
          calls.push_back(now() - a);
        }
        const double rpc = median(calls);
        std::printf(" %14.2f %10.2f", rpc * 1e6, rpc / med);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    ok(nexar_barrier(world), "barrier");
    std::free(sbuf);
    std::free(rbuf);
    if (n == 0) n = 1;
  }
  ok(nexar_comm_destroy(world), "destroy");
  return 0;
}
