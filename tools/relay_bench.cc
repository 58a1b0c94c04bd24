// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar-relay-bench: what relaying costs, side by side with the direct path in one job.
//   NEXAR_TOPOLOGY=kregular:2 NEXAR_TRANSPORT=quic nexrun -np 4 nexar-relay-bench
//       [-s SIZE[,SIZE...]] [-n MESSAGES] [-r REPEATS]
// Rank 0 streams MESSAGES messages of SIZE bytes to a neighbour (rank 1, one link) and to
// the rank two hops away (rank 2, relayed by rank 1 or 3), then waits for the receiver's
// one-byte answer; the time from the first send to the answer is one sample. The two
// targets alternate, REPEATS samples each (after one warm-up of each), so both see the
// same load. Prints per size the median bytes per second of each and their ratio. The
// first message of each size is checked byte for byte at the receiver.
// Defaults: sizes 1M,16M; 32 MiB per sample (at least 2 messages); 5 repeats.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_method.h"
#include "nexar/nexar.h"
#include "tool_check.h"

namespace {

nexar_comm_t world;

void ok(nexar_result_t r, const char* what) { exit_unless_ok("nexar-relay-bench", r, what, world); }

// A size (4, 64K, 1M) or a count on the command line; anything else ends the run with its name.
size_t size_arg(const char* s, const char* what) {
  int good = 0;
  const size_t v = bench_parse_size(s, &good);
  if (!good || v == 0) {
    std::fprintf(stderr, "nexar-relay-bench: %s '%s' is not a positive size (4, 64K, 1M)\n", what, s);
    std::exit(2);
  }
  return v;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

unsigned char pattern(size_t i) { return static_cast<unsigned char>((i * 131 + 7) & 0xff); }

// One sample: rank 0 streams msgs x n bytes to `to`, which answers one byte once it has
// them all. Returns the seconds rank 0 saw (0 on other ranks). check: the receiver
// compares the first message with the pattern.
double stream(int rank, int to, size_t n, int msgs, std::vector<unsigned char>& buf, bool check) {
  char answer = 0;
  if (rank == 0) {
    std::vector<nexar_request_t> sends(static_cast<size_t>(msgs));
    const double t0 = bench_now();
    for (int i = 0; i < msgs; ++i) ok(nexar_isend(buf.data(), n, NEXAR_UINT8, to, 1, world, &sends[static_cast<size_t>(i)]), "isend");
    ok(nexar_waitall(msgs, sends.data()), "waitall sends");
    ok(nexar_recv(&answer, 1, NEXAR_UINT8, to, 2, world), "recv answer");
    return bench_now() - t0;
  }
  if (rank == to) {
    for (int i = 0; i < msgs; ++i) {
      ok(nexar_recv(buf.data(), n, NEXAR_UINT8, 0, 1, world), "recv");
      for (size_t k = 0; check && i == 0 && k < n; ++k)
        if (buf[k] != pattern(k)) {
          std::fprintf(stderr, "nexar-relay-bench: rank %d: byte %zu of %zu differs\n", rank, k, n);
          std::exit(1);
        }
    }
    ok(nexar_send(&answer, 1, NEXAR_UINT8, 0, 2, world), "send answer");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {1u << 20, 16u << 20};
  int msgs_arg = 0, repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string o = argv[i];
    if (o == "-s") {
      sizes.clear();
      for (char* s = std::strtok(argv[i + 1], ","); s; s = std::strtok(nullptr, ",")) sizes.push_back(size_arg(s, "-s"));
    } else if (o == "-n") {
      msgs_arg = static_cast<int>(size_arg(argv[i + 1], "-n"));
    } else if (o == "-r") {
      repeats = static_cast<int>(size_arg(argv[i + 1], "-r"));
    } else {
      std::fprintf(stderr, "nexar-relay-bench: unknown option %s (-s SIZES, -n MESSAGES, -r REPEATS)\n", o.c_str());
      return 2;
    }
  }
  ok(nexar_init(&world), "init");
  int rank = 0, size = 0;
  ok(nexar_comm_rank(world, &rank), "comm_rank");
  ok(nexar_comm_size(world, &size), "comm_size");
  if (size < 3) {
    if (rank == 0) std::fprintf(stderr, "nexar-relay-bench: needs at least 3 ranks (rank 2 two hops from rank 0)\n");
    nexar_comm_destroy(world);
    return 2;
  }
  const char* topo = std::getenv("NEXAR_TOPOLOGY");
  if (rank == 0) {
    std::printf("# nexar-relay-bench: np %d, NEXAR_TOPOLOGY=%s; rank 0 -> 1 (direct) and 0 -> 2 (relayed), %d repeats\n",
                size, topo ? topo : "full", repeats);
    std::printf("%10s %6s %14s %14s %8s\n", "size", "msgs", "direct MB/s", "relayed MB/s", "ratio");
  }
  for (size_t n : sizes) {
    const int msgs = msgs_arg > 0 ? msgs_arg : static_cast<int>(std::max<size_t>(2, (32u << 20) / std::max<size_t>(n, 1)));
    std::vector<unsigned char> buf(n);
    for (size_t k = 0; k < n; ++k) buf[k] = rank == 0 ? pattern(k) : 0;
    std::vector<double> direct, relayed;
    for (int r = -1; r < repeats; ++r) {  // r == -1: warm-up (connections, first credit)
      const double d = stream(rank, 1, n, msgs, buf, r == -1);
      const double l = stream(rank, 2, n, msgs, buf, r == -1);
      if (r >= 0) direct.push_back(d), relayed.push_back(l);
    }
    if (rank == 0) {
      const double bytes = static_cast<double>(n) * msgs;
      const double dbw = bytes / median(direct) / 1e6, rbw = bytes / median(relayed) / 1e6;
      std::printf("%10zu %6d %14.1f %14.1f %8.2f\n", n, msgs, dbw, rbw, rbw / dbw);
      std::fflush(stdout);
    }
  }
  ok(nexar_comm_destroy(world), "comm_destroy");
  return 0;
}
