// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// vcoll_probe: the rank program of the end-to-end tests of the collectives with a count
// per rank, run under nexrun.
//   nexrun -np P vcoll_probe SCENARIO[,SCENARIO...]
// Scenarios: correct (every kind, blocking and non-blocking, uniform / hot / empty-rank
// counts, gaps that must stay untouched), split (on the halves of a split world), invalid
// (a local argument error leaves the communicator usable), inplace (alltoallv with one
// buffer, a hot receiver), cxx (the span wrapper),
// mismatch (rank 1 sends rank 2 one element more than it expects),
// destroy_pushed (2 ranks; see scenario_destroy_pushed). Each prints
// "rank R: NAME ok"; a failure prints what differed and exits 1.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "collectives/vector_layout.h"
#include "nexar/nexar.hpp"

namespace {

using nexar::coll::test::make_counts;
using nexar::coll::test::make_displs;
using nexar::coll::test::Pattern;

int g_rank = -1;
constexpr int32_t kSentinel = -7;

[[noreturn]] void fail(nexar_comm_t comm, int line, const std::string& what) {
  std::fprintf(stderr, "rank %d: FAILED at line %d: %s (last error: %s)\n", g_rank, line, what.c_str(),
               nexar_comm_last_error(comm));
  std::exit(1);
}
#define CHECK(comm, cond, what) \
  do {                          \
    if (!(cond)) fail(comm, __LINE__, std::string(#cond) + ": " + (what)); \
  } while (0)
#define OK(comm, call) CHECK(comm, (call) == NEXAR_SUCCESS, #call)

int32_t value(int from, int to, size_t k) { return from * 1000000 + to * 1000 + static_cast<int32_t>(k); }

// Runs call blocking (req NULL) or non-blocking and waits.
template <typename F>
void run(nexar_comm_t comm, bool nonblocking, const char* what, F call) {
  if (!nonblocking) {
    CHECK(comm, call(nullptr) == NEXAR_SUCCESS, what);
    return;
  }
  nexar_request_t req = nullptr;
  CHECK(comm, call(&req) == NEXAR_SUCCESS, what);
  CHECK(comm, nexar_wait(req) == NEXAR_SUCCESS, what);
}

struct Ctx {
  nexar_comm_t comm;
  int r, p;
  Pattern pat;
  bool gaps, nonblocking;
  std::string label() const {
    return std::to_string(p) + " ranks, pattern " + std::to_string(static_cast<int>(pat)) + (gaps ? ", gaps" : "") +
           (nonblocking ? ", non-blocking" : "");
  }
};

void check_alltoallv(const Ctx& c) {
  const auto m = make_counts(c.p, 5, c.pat);
  std::vector<size_t> sc, rc;
  for (int j = 0; j < c.p; ++j) sc.push_back(m[c.r][j]), rc.push_back(m[j][c.r]);
  size_t sext = 0, rext = 0;
  auto sd = std::make_unique<std::vector<size_t>>(make_displs(sc, c.gaps, &sext));
  auto rd = std::make_unique<std::vector<size_t>>(make_displs(rc, !c.gaps, &rext));
  std::vector<int32_t> send(sext, 0), recv(rext, kSentinel), want(rext, kSentinel);
  for (int j = 0; j < c.p; ++j)
    for (size_t k = 0; k < sc[j]; ++k) send[(*sd)[j] + k] = value(c.r, j, k);
  for (int j = 0; j < c.p; ++j)
    for (size_t k = 0; k < rc[j]; ++k) want[(*rd)[j] + k] = value(j, c.r, k);
  run(c.comm, c.nonblocking, "alltoallv", [&](nexar_request_t* req) {
    if (!req) return nexar_alltoallv(send.data(), sc.data(), sd->data(), recv.data(), rc.data(), rd->data(), NEXAR_INT32, c.comm);
    // The count arrays may go once the call returns.
    auto sc2 = std::make_unique<std::vector<size_t>>(sc);
    auto rc2 = std::make_unique<std::vector<size_t>>(rc);
    const nexar_result_t res = nexar_ialltoallv(send.data(), sc2->data(), sd->data(), recv.data(), rc2->data(),
                                                rd->data(), NEXAR_INT32, c.comm, req);
    std::fill(sc2->begin(), sc2->end(), 999);
    return res;
  });
  CHECK(c.comm, recv == want, "alltoallv data, " + c.label());
}

void check_gathers(const Ctx& c) {
  const std::vector<size_t> cnt = make_counts(c.p, 5, c.pat)[0];
  size_t ext = 0;
  const std::vector<size_t> displs = make_displs(cnt, c.gaps, &ext);
  std::vector<int32_t> mine(cnt[c.r]), all(ext, kSentinel);
  for (size_t k = 0; k < mine.size(); ++k) mine[k] = value(c.r, 0, k);
  for (int i = 0; i < c.p; ++i)
    for (size_t k = 0; k < cnt[i]; ++k) all[displs[i] + k] = value(i, 0, k);
  const int root = c.p - 1;
  std::vector<int32_t> got(ext, kSentinel);
  run(c.comm, c.nonblocking, "allgatherv", [&](nexar_request_t* req) {
    return req ? nexar_iallgatherv(mine.data(), mine.size(), got.data(), cnt.data(), displs.data(), NEXAR_INT32, c.comm, req)
               : nexar_allgatherv(mine.data(), mine.size(), got.data(), cnt.data(), displs.data(), NEXAR_INT32, c.comm);
  });
  CHECK(c.comm, got == all, "allgatherv data, " + c.label());
  std::vector<int32_t> gat(ext, kSentinel);
  const bool is_root = c.r == root;
  run(c.comm, c.nonblocking, "gatherv", [&](nexar_request_t* req) {
    const size_t* rc = is_root ? cnt.data() : nullptr;
    const size_t* rd = is_root ? displs.data() : nullptr;
    return req ? nexar_igatherv(mine.data(), mine.size(), gat.data(), rc, rd, NEXAR_INT32, root, c.comm, req)
               : nexar_gatherv(mine.data(), mine.size(), gat.data(), rc, rd, NEXAR_INT32, root, c.comm);
  });
  CHECK(c.comm, !is_root || gat == all, "gatherv data, " + c.label());
  // scatterv: the root's blocks of `all` (value(i, 0, k) for rank i).
  std::vector<int32_t> part(cnt[c.r] + 2, kSentinel);
  run(c.comm, c.nonblocking, "scatterv", [&](nexar_request_t* req) {
    return req ? nexar_iscatterv(all.data(), cnt.data(), displs.data(), part.data(), cnt[c.r], NEXAR_INT32, root, c.comm, req)
               : nexar_scatterv(all.data(), cnt.data(), displs.data(), part.data(), cnt[c.r], NEXAR_INT32, root, c.comm);
  });
  std::vector<int32_t> want_part(mine);
  want_part.push_back(kSentinel), want_part.push_back(kSentinel);
  CHECK(c.comm, part == want_part, "scatterv data, " + c.label());
  // reduce_scatter_v: every rank sends value(r, 0, k) over sum(cnt); block r summed.
  std::vector<size_t> off(static_cast<size_t>(c.p) + 1, 0);
  for (int i = 0; i < c.p; ++i) off[i + 1] = off[i] + cnt[i];
  std::vector<int64_t> in(off[c.p]), out(cnt[c.r] + 1, kSentinel), want(cnt[c.r] + 1, kSentinel);
  for (size_t k = 0; k < in.size(); ++k) in[k] = value(c.r, 0, k);
  for (size_t k = 0; k < cnt[c.r]; ++k) {
    want[k] = 0;
    for (int i = 0; i < c.p; ++i) want[k] += value(i, 0, off[c.r] + k);
  }
  run(c.comm, c.nonblocking, "reduce_scatter_v", [&](nexar_request_t* req) {
    return req ? nexar_ireduce_scatter_v(in.data(), out.data(), cnt.data(), NEXAR_INT64, NEXAR_SUM, c.comm, req)
               : nexar_reduce_scatter_v(in.data(), out.data(), cnt.data(), NEXAR_INT64, NEXAR_SUM, c.comm);
  });
  CHECK(c.comm, out == want, "reduce_scatter_v data, " + c.label());
}

void scenario_correct(nexar_comm_t comm) {
  int r = 0, p = 0;
  OK(comm, nexar_comm_rank(comm, &r));
  OK(comm, nexar_comm_size(comm, &p));
  for (Pattern pat : {Pattern::UNIFORM, Pattern::HOT, Pattern::EMPTY_RANKS})
    for (bool gaps : {false, true})
      for (bool nb : {false, true}) {
        const Ctx c{comm, r, p, pat, gaps, nb};
        check_alltoallv(c);
        check_gathers(c);
      }
}

void scenario_split(nexar_comm_t world) {
  nexar_comm_t half = nullptr;
  OK(world, nexar_comm_split(world, g_rank % 2, -g_rank, &half));  // reversed order inside each half
  scenario_correct(half);
  OK(half, nexar_comm_destroy(half));
}

// In place (sendbuf == recvbuf, one layout for both), rank 0 a hot receiver: everyone
// sends it 12 elements and 3 to each other rank; blocks 12 elements apart.
void scenario_inplace(nexar_comm_t comm) {
  int r = 0, p = 0;
  OK(comm, nexar_comm_rank(comm, &r));
  OK(comm, nexar_comm_size(comm, &p));
  std::vector<size_t> sc(p), rc(p), d(p);
  for (int j = 0; j < p; ++j) sc[j] = j == 0 ? 12 : 3, rc[j] = r == 0 ? 12 : 3, d[j] = 12 * static_cast<size_t>(j);
  for (bool nb : {false, true}) {
    std::vector<int32_t> buf(12 * static_cast<size_t>(p), kSentinel), want(buf);
    for (int j = 0; j < p; ++j)
      for (size_t k = 0; k < 12; ++k) {
        if (k < sc[j]) buf[d[j] + k] = value(r, j, k);
        want[d[j] + k] = k < rc[j] ? value(j, r, k) : k < sc[j] ? value(r, j, k) : kSentinel;
      }
    run(comm, nb, "in-place alltoallv", [&](nexar_request_t* req) {
      return req ? nexar_ialltoallv(buf.data(), sc.data(), d.data(), buf.data(), rc.data(), d.data(), NEXAR_INT32, comm, req)
                 : nexar_alltoallv(buf.data(), sc.data(), d.data(), buf.data(), rc.data(), d.data(), NEXAR_INT32, comm);
    });
    CHECK(comm, buf == want, std::string("in-place alltoallv data") + (nb ? ", non-blocking" : ""));
  }
}

void scenario_invalid(nexar_comm_t comm) {
  int p = 0;
  OK(comm, nexar_comm_size(comm, &p));
  std::vector<size_t> sc(p, 1), rc(p, 1), d(p);
  for (int j = 0; j < p; ++j) d[j] = j;
  rc[g_rank] = 2;  // sends itself 1, expects 2
  std::vector<int32_t> s(p + 1), rv(p + 1);
  CHECK(comm, nexar_alltoallv(s.data(), sc.data(), d.data(), rv.data(), rc.data(), d.data(), NEXAR_INT32, comm) ==
                  NEXAR_ERR_INVALID_ARGUMENT, "own block larger than the receive");
  CHECK(comm, std::strstr(nexar_comm_last_error(comm), "sends itself 1 elements where its receive holds 2"),
        nexar_comm_last_error(comm));
  CHECK(comm, nexar_alltoallv(s.data(), sc.data(), nullptr, rv.data(), sc.data(), d.data(), NEXAR_INT32, comm) ==
                  NEXAR_ERR_INVALID_ARGUMENT, "NULL sdispls");
  const Ctx c{comm, g_rank, p, Pattern::UNIFORM, false, false};
  check_alltoallv(c);  // still usable
}

void scenario_cxx(nexar_comm_t world) {
  nexar_comm_t comm = nullptr;
  OK(world, nexar_comm_dup(world, &comm));
  nexar::Communicator w(comm);  // destroys the duplicate
  const int p = w.size();
  std::vector<size_t> cnt(p, 2), d(p);
  for (int j = 0; j < p; ++j) d[j] = 2 * static_cast<size_t>(j);
  std::vector<float> s(2 * p, static_cast<float>(g_rank)), r(2 * p, -1);
  w.alltoallv(std::span<const float>(s), cnt, d, std::span<float>(r), cnt, d);
  for (int j = 0; j < p; ++j) CHECK(comm, r[2 * j] == static_cast<float>(j) && r[2 * j + 1] == static_cast<float>(j), "cxx alltoallv");
  w.ialltoallv(std::span<const float>(s), cnt, d, std::span<float>(r), cnt, d).wait();
  std::vector<float> small(2 * p - 1);
  try {
    w.alltoallv(std::span<const float>(s), cnt, d, std::span<float>(small), cnt, d);
    fail(comm, __LINE__, "a receive span too small did not throw");
  } catch (const nexar::Error& e) {
    CHECK(comm, e.code() == NEXAR_ERR_INVALID_ARGUMENT, e.what());
    CHECK(comm, std::strstr(e.what(), "of a buffer of"), e.what());
  }
}

void scenario_mismatch(nexar_comm_t comm) {
  int p = 0;
  OK(comm, nexar_comm_size(comm, &p));
  std::vector<size_t> sc(p, 4), rc(p, 4), d(p);
  for (int j = 0; j < p; ++j) d[j] = 4 * static_cast<size_t>(j);
  if (g_rank == 1) sc[2] = 5;
  std::vector<int32_t> s(4 * p + 4, 1), rv(4 * p, kSentinel);
  const nexar_result_t res = nexar_alltoallv(s.data(), sc.data(), d.data(), rv.data(), rc.data(), d.data(), NEXAR_INT32, comm);
  if (res == NEXAR_SUCCESS) {  // a rank outside the pair may complete; its next call fails
    CHECK(comm, g_rank != 1 && g_rank != 2, "a mismatched alltoallv succeeded on the pair");
    CHECK(comm, nexar_barrier(comm) == NEXAR_ERR_MISMATCH, "the call after a peer's mismatch");
  }
  if (g_rank == 1 || g_rank == 2) {
    const char* text = "alltoallv: rank 1 sends 5 elements to rank 2 where rank 2 expects 4 from rank 1";
    CHECK(comm, res == NEXAR_ERR_MISMATCH, nexar_result_string(res));
    CHECK(comm, std::strstr(nexar_comm_last_error(comm), text), nexar_comm_last_error(comm));
    for (int32_t x : rv) CHECK(comm, x == kSentinel, "data written after a mismatch");
    std::printf("rank %d: error: %s\n", g_rank, nexar_comm_last_error(comm));
  }
}

// Whether process pid is stopped (state T in /proc/<pid>/stat).
bool stopped(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t end = stat.rfind(')');
  return end != std::string::npos && end + 2 < stat.size() && stat[end + 2] == 'T';
}

// Run with NEXAR_FAULT_STOP=1:alltoallv_read and pushed alltoallv shm_direct on 2 ranks:
// rank 1 stops itself after the arrival round of an alltoallv on a duplicate, before it
// reads. Rank 0 pushed, so its call returns after that round; it aborts the duplicate and
// destroys it (a broken communicator: no closing barrier) while rank 1 has not read its
// push yet, which must take well under the 30 s timeout; then it resumes rank 1, which
// maps and reads rank 0's push (still open in rank 0's process) and gets exact data.
void scenario_destroy_pushed(nexar_comm_t world) {
  int p = 0;
  OK(world, nexar_comm_size(world, &p));
  CHECK(world, p == 2, "destroy_pushed runs on 2 ranks");
  int32_t pid = static_cast<int32_t>(getpid()), pids[2] = {0, 0};
  OK(world, nexar_allgather(&pid, pids, 1, NEXAR_INT32, world));
  nexar_comm_t dup = nullptr;
  OK(world, nexar_comm_dup(world, &dup));
  const std::vector<size_t> cnt{3, 3}, d{0, 3};
  std::vector<int32_t> send(6), recv(6, kSentinel), want(6);
  for (int j = 0; j < 2; ++j)
    for (size_t k = 0; k < 3; ++k) send[d[j] + k] = value(g_rank, j, k), want[d[j] + k] = value(j, g_rank, k);
  OK(dup, nexar_alltoallv(send.data(), cnt.data(), d.data(), recv.data(), cnt.data(), d.data(), NEXAR_INT32, dup));
  CHECK(dup, recv == want, "alltoallv data");
  if (g_rank == 0) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!stopped(pids[1]) && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(dup, stopped(pids[1]), "rank 1 did not stop at alltoallv_read");
    OK(dup, nexar_comm_abort(dup));
    const auto t0 = std::chrono::steady_clock::now();
    (void)nexar_comm_destroy(dup);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("rank 0: destroy after %.3f s\n", s);
    CHECK(world, s < 3, "the destroy waited for a reader that had not read");
    CHECK(world, ::kill(pids[1], SIGCONT) == 0, "SIGCONT to rank 1");
  } else {
    (void)nexar_comm_destroy(dup);
  }
  OK(world, nexar_barrier(world));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: vcoll_probe SCENARIO[,SCENARIO...]\n");
    return 2;
  }
  nexar_comm_t world = nullptr;
  OK(world, nexar_init(&world));
  OK(world, nexar_comm_rank(world, &g_rank));
  std::stringstream list(argv[1]);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name == "correct") scenario_correct(world);
    else if (name == "split") scenario_split(world);
    else if (name == "invalid") scenario_invalid(world);
    else if (name == "inplace") scenario_inplace(world);
    else if (name == "cxx") scenario_cxx(world);
    else if (name == "mismatch") scenario_mismatch(world);
    else if (name == "destroy_pushed") scenario_destroy_pushed(world);
    else fail(world, __LINE__, "unknown scenario " + name);
    std::printf("rank %d: %s ok\n", g_rank, name.c_str());
    std::fflush(stdout);
  }
  (void)nexar_comm_destroy(world);
  return 0;
}
