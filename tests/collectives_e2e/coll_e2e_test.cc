// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Collectives end to end: coll_e2e_probe ranks started by nexrun, over real QUIC on
// loopback. Many checks are grouped into one nexrun run per world size and algorithm
// round: round i forces, for every collective, its i-th applicable algorithm (from the
// library's own table, so a new algorithm is tested without editing this file).
#include <catch.hpp>

#include <algorithm>
#include <vector>

#include "collectives/algo_table.h"
#include "launcher/rank_run.h"

using launcher_test::count_of;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

Run probe(int np, const std::string& scenarios, const std::vector<std::string>& env,
          std::chrono::milliseconds timeout = 120s) {
  return launcher_test::run_ranks(np, {COLL_E2E_PROBE, scenarios}, env, {}, timeout);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t e; (e = s.find(sep, b)) != std::string::npos; b = e + 1) out.push_back(s.substr(b, e - b));
  out.push_back(s.substr(b));
  return out;
}

// Every rank printed "<name> ok" for every scenario, and the job ended cleanly.
void expect_ok(const Run& r, int np, const std::string& scenarios, const std::string& what) {
  INFO(what << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  REQUIRE(r.end.exit_code == 0);
  for (const std::string& s : split(scenarios, ','))
    REQUIRE(count_of(r.out, ": " + s + " ok") == static_cast<size_t>(np));
}

// NEXAR_ALGO values that, together, force every algorithm applicable with p ranks: those
// that need shared-memory collective slots (slots true) or those that do not.
std::vector<std::string> algo_rounds(int p, bool slots) {
  using nexar::coll::AlgoDesc;
  using nexar::coll::CollKind;
  std::vector<std::vector<const AlgoDesc*>> per_kind(nexar::coll::kCollKindCount);
  for (const AlgoDesc& d : nexar::coll::algo_table()) {
    nexar::coll::CollArgs args;
    args.kind = d.kind;
    if ((d.slots != nexar::coll::SlotUse::NONE) != slots) continue;
    if (!d.why_not || !d.why_not(p, args)) per_kind[static_cast<size_t>(d.kind)].push_back(&d);
  }
  size_t rounds = 0;
  for (const auto& v : per_kind) rounds = std::max(rounds, v.size());
  std::vector<std::string> out;
  for (size_t i = 0; i < rounds; ++i) {
    std::string spec;
    for (const auto& v : per_kind)
      if (!v.empty())
        spec += std::string(spec.empty() ? "" : ",") + nexar::coll::coll_kind_name(v[0]->kind) + ":" +
                v[i % v.size()]->name;
    out.push_back(spec);
  }
  return out;
}

// Forced rounds run over QUIC (NEXAR_TRANSPORT=quic: the transport between hosts), and
// the shared-slot algorithms over shared memory (slots carrying up to 1 MiB inline, so
// every size of the sweep fits shm_flat); the cost model's own choices run over QUIC and
// over the default transport (shared memory between ranks of one host).
void run_world(int np, bool with_large) {
  const std::string forced = std::string("sweep,dtypes,bitwise") + (with_large ? ",large" : "");
  for (const std::string& spec : algo_rounds(np, false)) {
    const Run r = probe(np, forced, {"NEXAR_ALGO=" + spec, "NEXAR_TRANSPORT=quic", "NEXAR_TIMEOUT=60"});
    expect_ok(r, np, forced, "np " + std::to_string(np) + " over QUIC, NEXAR_ALGO=" + spec);
  }
  const std::string slot_forced = "sweep,dtypes,bitwise,identical,nonblocking";
  for (const std::string& spec : algo_rounds(np, true)) {
    const Run r = probe(np, slot_forced, {"NEXAR_ALGO=" + spec, "NEXAR_SHM_COLL_INLINE=1048576", "NEXAR_TIMEOUT=60"});
    expect_ok(r, np, slot_forced, "np " + std::to_string(np) + " over shared memory, NEXAR_ALGO=" + spec);
  }
  const std::string chosen =
      std::string("sweep,dtypes,bitwise,identical,nonblocking,invalid") + (with_large ? ",large" : "");
  for (const char* transport : {"quic", "auto"}) {
    const Run r = probe(np, chosen, {std::string("NEXAR_TRANSPORT=") + transport, "NEXAR_TIMEOUT=60"});
    expect_ok(r, np, chosen, "np " + std::to_string(np) + " NEXAR_TRANSPORT=" + transport + ", algorithms chosen");
  }
}

}  // namespace

TEST_CASE("every collective and algorithm, exact results, on 1-8 ranks", "[e2e][correct]") {
  // Worlds, and those that also send large messages: one rank, powers of two and 3 (not a
  // power of two: the algorithms' remainder paths); 5, 11 and 16 are in the long case. Under
  // sanitizers: one rank, 3 and the largest (seven worlds took 305 s there).
#ifdef NEXAR_TEST_SANITIZED
  const std::vector<int> worlds{1, 3, 8}, large{1, 3};
#else
  const std::vector<int> worlds{1, 2, 3, 4, 8}, large{1, 2, 3, 8};
#endif
  for (int np : worlds) run_world(np, std::find(large.begin(), large.end(), np) != large.end());
}

// reduce shm_direct cuts its blocks by bytes at 2 ranks (the root takes 16 KiB more than
// two thirds) and evenly beyond: sizes around the cut, every root, in place, and the
// model's own choice there.
TEST_CASE("reduce at sizes around where its blocks are cut, exact on 2 and 3 ranks", "[e2e][correct]") {
  for (int np : {2, 3})
    for (const char* algo : {"NEXAR_ALGO=reduce:shm_direct", "NEXAR_ALGO="}) {
      const Run r = probe(np, "reduce_sizes", {algo, "NEXAR_TIMEOUT=60"});
      expect_ok(r, np, "reduce_sizes", "np " + std::to_string(np) + " " + algo);
    }
}

// A world of one, and two ranks each in a communicator of its own (split, dup): every
// collective's result, every argument error, and revoked or aborted ones failing.
TEST_CASE("communicators of one rank: exact results, every error, revoked and aborted", "[e2e][correct]") {
  for (int np : {1, 2}) {
    const Run r = probe(np, "one_rank", {"NEXAR_TIMEOUT=60"});
    expect_ok(r, np, "one_rank", "np " + std::to_string(np) + ", communicators of one rank");
  }
}

// Two ranks over shared memory (the shared-slot algorithms, as a loop's small calls run):
// each argument made wrong right after a call that passed, which is remembered (comm/passed_call.h).
TEST_CASE("np 2: each argument made wrong after a call that passed is refused", "[e2e][correct]") {
  const Run r = probe(2, "passed_call", {"NEXAR_TIMEOUT=60"});
  expect_ok(r, 2, "passed_call", "np 2, calls that passed, then wrong arguments");
}

TEST_CASE("every collective and algorithm on 5, 11 and 16 ranks", "[e2e][.long]") {
  for (int np : {5, 11, 16}) run_world(np, true);
}

// Every rank, also one that only sends (a broadcast root) or whose part of a tree agrees,
// gets MISMATCH from the call itself (docs/collectives.md, "Disagreement"); forced
// algorithms cover the ones without the agreement round too.
TEST_CASE("ranks that disagree all get NEXAR_ERR_MISMATCH naming both calls", "[e2e][errors]") {
  struct MismatchCase {
    const char* what;
    int np;
    const char* algo;  // NEXAR_ALGO, or "" for the model's choice
  };
  const MismatchCase cases[] = {{"count", 3, ""},
                                {"dtype", 2, ""},
                                {"op", 4, ""},
                                {"root", 3, ""},
                                {"root", 5, "broadcast:scatter_allgather"},
                                {"root_reduce", 4, ""},
                                {"root_reduce", 3, "reduce:reduce_scatter_gather"},
                                {"root_gather", 5, ""},
                                {"root_scatter", 3, ""},
                                {"count_scan", 4, ""},
                                {"count_bucketed", 3, ""},
                                {"count_empty", 2, ""},
                                {"count", 3, "allreduce:ring_pipelined"},
                                {"kind", 5, ""},
                                {"destroy", 2, ""},
                                {"destroy", 3, ""},
                                {"destroy", 4, "barrier:dissemination"},
                                {"order", 3, ""}};
  for (const MismatchCase& c : cases) {
    const std::string scenario = std::string("mismatch:") + c.what;
    std::vector<std::string> env = {"NEXAR_TIMEOUT=30"};
    if (*c.algo) env.push_back(std::string("NEXAR_ALGO=") + c.algo);
    const Run r = probe(c.np, scenario, env, 60s);
    INFO(scenario << " np " << c.np << " " << c.algo << "\n" << r.out);
    expect_ok(r, c.np, scenario, scenario);
    CHECK(count_of(r.out, " late ") == 0);
  }
}

TEST_CASE("an algorithm forced where it cannot run fails locally on every rank", "[e2e][errors]") {
  const Run r = probe(3, "algo_error", {"NEXAR_ALGO=allgather:recursive_doubling"});
  expect_ok(r, 3, "algo_error", "algo_error");
}
