// nexar-p2p-bench: ping-pong between ranks 0 and 1 over whatever transport joins them.
//   nexrun -np 2 nexar-p2p-bench [-b MIN] [-e MAX] [-f FACTOR] [-t SECONDS-PER-SIZE]
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

namespace {

nexar_comm_t world;

void ok(nexar_result_t r, const char* what) {
  if (r != NEXAR_SUCCESS) {
    std::fprintf(stderr, "nexar-p2p-bench: %s: %s: %s\n", what, nexar_result_string(r), nexar_comm_last_error(world));
    std::exit(1);
  }
}

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

// One round trip of n bytes from rank 0's point of view.
void round_trip(int rank, unsigned char* sbuf, unsigned char* rbuf, size_t n) {
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
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "-b") min_b = parse_size(argv[i + 1]);
    else if (a == "-e") max_b = parse_size(argv[i + 1]);
    else if (a == "-f") factor = std::atof(argv[i + 1]);
    else if (a == "-t") target = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: nexar-p2p-bench [-b MIN] [-e MAX] [-f FACTOR] [-t SECONDS]\n");
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
  if (rank == 0) std::printf("%12s %10s %14s %14s %12s\n", "bytes", "iters", "rtt_med(us)", "oneway(us)", "GB/s");
  for (size_t n = min_b; n <= max_b; n = std::max(n + 1, static_cast<size_t>(n * factor))) {
    unsigned char *sbuf = nullptr, *rbuf = nullptr;
    if (posix_memalign(reinterpret_cast<void**>(&sbuf), 4096, n ? n : 1) ||
        posix_memalign(reinterpret_cast<void**>(&rbuf), 4096, n ? n : 1))
      return 1;
    for (size_t i = 0; i < n; ++i) sbuf[i] = static_cast<unsigned char>(i * 7 + 3);
    std::memset(rbuf, 0, n);
    round_trip(rank, sbuf, rbuf, n);  // correctness check
    if (rank == 0)
      for (size_t i = 0; i < n; ++i)
        if (rbuf[i] != static_cast<unsigned char>(i * 7 + 3)) {
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
      std::nth_element(samples.begin(), samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
      double med = samples[samples.size() / 2];
      std::printf("%12zu %10ld %14.2f %14.2f %12.3f\n", n, k, med * 1e6, med * 0.5e6, n / (med / 2) / 1e9);
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
