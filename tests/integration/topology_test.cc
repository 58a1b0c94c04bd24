// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TOPOLOGY end to end (topology_probe under nexrun, QUIC forced, np 8): every pair
// exchanges messages, three in order on one tag and a large one, most of them relayed
// through neighbours; they arrive exact and in order; a probe from any source finds a
// relayed message; an allreduce over relays is exact; each rank holds links to its
// neighbours in the graph only (the INFO line nexar_comm_destroy logs). Two floods crossing
// one relay in opposite directions arrive exact and in order, and no rank ever has more
// than NEXAR_RELAY_BUDGET bytes of one hop class on the way to a next hop without its
// credit back (their INFO lines). A ring whose relays all wait for each other still
// delivers (credit per hop class). A rank lost
// beyond a rank's neighbours fails its receive from it with NEXAR_ERR_PEER_LOST naming it
// (its neighbours pass the loss on). Collectives on a hypercube choose algorithms whose
// partners are neighbours: exact, and nothing relayed. A lost relay is
// NEXAR_ERR_PEER_LOST naming it, to the sender and the receiver; unknown values and a
// topology that differs between ranks are refused by name.
#include <catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "launcher/rank_run.h"
#include "pattern.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using namespace std::chrono_literals;

namespace {

constexpr size_t kSmall = 100, kLarge = 200000;  // as in topology_probe.cc
constexpr int kSmalls = 3;

launcher_test::RankRun run(int np, const std::vector<std::string>& args, const std::string& topology,
                           const std::string& connect, std::vector<std::string> env = {},
                           const std::vector<std::string>& opts = {}) {
  std::vector<std::string> a = {TOPOLOGY_PROBE};
  a.insert(a.end(), args.begin(), args.end());
  env.insert(env.end(), {"NEXAR_TRANSPORT=quic", "NEXAR_TOPOLOGY=" + topology, "NEXAR_CONNECT=" + connect,
                         "NEXAR_DEBUG=INFO", "NEXAR_DEBUG_SUBSYS=INIT"});
  return launcher_test::run_ranks(np, a, env, opts, 60s);
}

std::string hex(uint64_t h) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

// What rank `to` receives from `from` (topology_probe.cc's pairs()).
std::string pair_line(int to, int from) {
  std::vector<unsigned char> smalls;
  for (int k = 0; k < kSmalls; ++k)
    for (size_t i = 0; i < kSmall; ++i) smalls.push_back(probe::pattern(from, 10 * to + k, i));
  return "rank " + std::to_string(to) + ": from " + std::to_string(from) + " small " +
         hex(probe::fnv1a(smalls.data(), smalls.size())) + " large " + hex(probe::pattern_fnv1a(from, 10 * to + 9, kLarge));
}

void check_pairs(int np, const std::string& topology, const std::string& connect, int neighbours) {
  auto r = run(np, {"pairs"}, topology, connect);
  expect_ok(r, np, "allreduce " + std::to_string(1000 * np + np * (np - 1) / 2));
  INFO(topology << " " << connect << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  for (int rank = 0; rank < np; ++rank) {
    for (int from = 0; from < np; ++from)
      if (from != rank) CHECK(count_of(r.out, pair_line(rank, from)) == 1);
    const int from = (rank + np - 3) % np;
    CHECK(count_of(r.out, "rank " + std::to_string(rank) + ": probed " + std::to_string(from) + " bytes 4 value " +
                              std::to_string(700 + from)) == 1);
    // Links exist to the graph's neighbours only; eager connects all of them at init.
    const std::string prefix = "rank " + std::to_string(rank) + ": ";
    const std::string suffix = " of " + std::to_string(neighbours) + " network peers connected (QUIC, NEXAR_CONNECT=" +
                               connect + ") before the closing barrier";
    int found = 0;
    for (int used = 0; used <= neighbours; ++used)
      if (count_of(r.err, prefix + std::to_string(used) + suffix) == 1) {
        ++found;
        if (connect == "eager") CHECK(used == neighbours);
      }
    CHECK(found == 1);
  }
}

}  // namespace

TEST_CASE("topology: hypercube and kregular:2 at np 8 relay every pair's messages exact and in order", "[topology]") {
#ifndef NEXAR_TEST_SANITIZED  // the sanitized suite relays through one graph (CI time)
  check_pairs(8, "hypercube", "eager", 3);
#endif
  check_pairs(8, "kregular:2", "lazy", 2);
}

// What rank `rank` relayed for others before nexar_comm_destroy's closing barrier (its
// INFO line), or -1 when it did not log one.
long long relayed_before_close(const std::string& err, int rank) {
  const std::string head = "rank " + std::to_string(rank) + ": relayed ";
  for (size_t at = err.find(head); at != std::string::npos; at = err.find(head, at + 1)) {
    const size_t end = err.find('\n', at);
    if (err.substr(at, end - at).find("before the closing barrier") == std::string::npos) continue;
    return std::atoll(err.c_str() + at + head.size());
  }
  return -1;
}

TEST_CASE("topology: collectives on a hypercube pick partners that are neighbours, any root: nothing is relayed",
          "[topology]") {
  // np 8: allreduce (8 B and 2 MiB), allgather, reduce_scatter, broadcast and reduce from
  // roots 0, 5 and 6 (their agreement round included) and nexar_init's barrier, every
  // result exact, and not one byte through a relay (recursive doubling, halving, binomial
  // trees over r ^ root: partners r ^ 2^k).
  auto r = run(8, {"colls"}, "hypercube", "lazy");
  expect_ok(r, 8, ": reduce 2 MiB root 6 exact");
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(count_of(r.out, " exact\n") == 8 * 10);
  CHECK(count_of(r.out, "WRONG") == 0);
  for (int rank = 0; rank < 8; ++rank) CHECK(relayed_before_close(r.err, rank) == 0);
}

TEST_CASE("topology: two floods crossing one relay stay within NEXAR_RELAY_BUDGET, exact and in order", "[topology]") {
  // Hypercube at np 3: rank 0 relays 1 -> 2 and 2 -> 1 at once, in fragments of 16 KiB.
  constexpr long long kBudget = 16384, kEachWay = 4 * (150000 + 100 + 70000 + 0 + 5000);
  auto r = run(3, {"flood"}, "hypercube", "eager", {"NEXAR_RELAY_BUDGET=" + std::to_string(kBudget)});
  expect_ok(r, 2, ": flood from ");
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(count_of(r.out, "rank 1: flood from 2 exact 20\n") == 1);
  CHECK(count_of(r.out, "rank 2: flood from 1 exact 20\n") == 1);
  // Each rank's last relay line: at the world's end (its closing barrier came before the floods).
  for (int rank = 0; rank < 3; ++rank) {
    const std::string head = "rank " + std::to_string(rank) + ": relayed ";
    const size_t at = r.err.rfind(head);
    REQUIRE(at != std::string::npos);
    unsigned long long forwarded = 0, peak = 0, waited = 0;
    long long budget = 0;
    REQUIRE(std::sscanf(r.err.c_str() + at + head.size(),
                        "%llu bytes for others, at most %llu bytes on the way to one next hop in one hop class "
                        "(NEXAR_RELAY_BUDGET=%lld), fragments waited for credit %llu times",
                        &forwarded, &peak, &budget, &waited) == 4);
    INFO("rank " << rank);
    CHECK(budget == kBudget);
    // No link ever had more than the budget of one class without the hop's credit back.
    CHECK(peak > 0);
    CHECK(peak <= static_cast<unsigned long long>(kBudget));
    if (rank == 0) {
      CHECK(forwarded >= 2 * static_cast<unsigned long long>(kEachWay));
    } else {
      // The senders queue each message whole: their fragments waited for rank 0's credit.
      CHECK(forwarded == 0);
      CHECK(waited > 0);
    }
  }
}

// The relays of a ring wait for each other in a circle: on kregular:2 at np 4 every rank
// floods the rank two ahead, so each rank relays its left neighbour's flood to its right
// neighbour while its own flood and the fragments it forwards fill the same links. 20 x
// 1 MiB at a 16 KiB budget is more than a QUIC stream's 16 MiB window: with credit held
// back per connection (before hop classes) every rank ended in NEXAR_ERR_TIMEOUT. With
// credit per hop class a fragment on its last hop never waits behind one with hops to go.
TEST_CASE("topology: relays waiting on each other in a circle still deliver", "[topology][cycle]") {
#ifndef NEXAR_TEST_SANITIZED
  constexpr int kMsgs = 20;
#else
  constexpr int kMsgs = 4;  // the sanitized suite checks the relaying, not the window (CI time)
#endif
  auto r = run(4, {"cycle", std::to_string(kMsgs), "1048576"}, "kregular:2", "eager",
               {"NEXAR_RELAY_BUDGET=16384", "NEXAR_TIMEOUT=30"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(count_of(r.out, " NEXAR_SUCCESS exact " + std::to_string(kMsgs) + " after ") == 4);
  // Each rank relayed its left neighbour's flood, prefixes on top (its last INFO line, at
  // the world's end: a rank may reach its closing barrier while still relaying).
  for (int rank = 0; rank < 4; ++rank) {
    const std::string head = "rank " + std::to_string(rank) + ": relayed ";
    const size_t at = r.err.rfind(head);
    REQUIRE(at != std::string::npos);
    CHECK(std::atoll(r.err.c_str() + at + head.size()) >= static_cast<long long>(kMsgs) << 20);
  }
}

TEST_CASE("topology: a lost relay is NEXAR_ERR_PEER_LOST naming it, to sender and receiver", "[topology]") {
  auto r = run(4, {"relay"}, "kregular:2", "eager", {"NEXAR_TIMEOUT=30"}, {"--no-kill"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  // Rank 0 hears of the loss from its own link to rank 3 or, first, from a peer's report
  // ("rank 1 reported: rank 2 reported: rank 3, which relays ..."): either way its receive
  // fails with PEER_LOST naming rank 3 as the lost relay.
  const size_t at = r.out.find("rank 0: recv NEXAR_ERR_PEER_LOST (");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  CHECK(line.find("rank 3, which relays") != std::string::npos);
  // Rank 2's send fails alike: from its own link to rank 3 ("rank 3, which relays this
  // rank's messages to rank 0, was lost") or, first, from a peer's report of it ("rank 1
  // reported: rank 0 reported: rank 3, which relays rank 2's messages to this rank").
  const size_t at2 = r.out.find("rank 2: send NEXAR_ERR_PEER_LOST (");
  REQUIRE(at2 != std::string::npos);
  const std::string line2 = r.out.substr(at2, r.out.find('\n', at2) - at2);
  CHECK((line2.find("rank 3, which relays this rank's messages to rank 0, was lost") != std::string::npos ||
         line2.find("rank 3, which relays rank 2's messages to") != std::string::npos));
  CHECK(count_of(r.out, "rank 2: send NEXAR_ERR_PEER_LOST (") == 1);
}

TEST_CASE("topology: a rank lost beyond the neighbours is NEXAR_ERR_PEER_LOST naming it on every rank", "[topology]") {
  // Hypercube at np 8: rank 7 dies while every other rank waits to receive from it; 0, 1,
  // 2 and 4 hold no link to it and learn of it from the notices its neighbours pass on.
  auto r = run(8, {"lost"}, "hypercube", "eager", {"NEXAR_TIMEOUT=60"}, {"--no-kill"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  for (int rank = 0; rank < 7; ++rank) {
    const std::string line = "rank " + std::to_string(rank) + ": recv from 7 NEXAR_ERR_PEER_LOST after ";
    const size_t at = r.out.find(line);
    REQUIRE(at != std::string::npos);
    // Well before the 60 s timeout: noticed, not waited out.
    CHECK(std::strtod(r.out.c_str() + at + line.size(), nullptr) < 20.0);
    if (rank == 3 || rank == 5 || rank == 6) continue;  // its own link told it
    // A neighbour's notice names rank 7 ("rank 7 was lost (rank 3 passed on: ...)"); a
    // peer's abort may carry it first, with that peer's notice or with what a neighbour of
    // 7 saw itself ("rank 5 reported: rank 7: rank 7 (pid N, same host) exited"): either
    // way naming the lost rank and who told.
    const std::string whole = r.out.substr(at, r.out.find('\n', at) - at);
    const bool noticed = whole.find("rank 7 was lost (rank ") != std::string::npos;
    const bool reported = whole.find(" reported: rank 7: rank 7 (pid ") != std::string::npos;
    CHECK((noticed || reported));
  }
  // The fault-tolerance layer heard of it everywhere: the survivors shrink to 7 ranks.
  CHECK(count_of(r.out, ": shrink NEXAR_SUCCESS size 7\n") == 7);
}

TEST_CASE("topology: unknown values and topologies that differ between ranks are refused by name", "[topology]") {
  auto bad = launcher_test::run_ranks(2, {TOPOLOGY_PROBE, "pairs"}, {"NEXAR_TOPOLOGY=star"}, {}, 60s);
  INFO("stderr:\n" << bad.err);
  CHECK(bad.end.exit_code != 0);
  CHECK(count_of(bad.err, "NEXAR_TOPOLOGY=star is not a topology (full, kregular:K or hypercube)") >= 1);
  auto tcp = launcher_test::run_ranks(4, {TOPOLOGY_PROBE, "pairs"}, {"NEXAR_TOPOLOGY=kregular:2", "NEXAR_TRANSPORT=tcp"},
                                      {}, 60s);
  INFO("stderr:\n" << tcp.err);
  CHECK(tcp.end.exit_code != 0);
  CHECK(count_of(tcp.err, "NEXAR_TOPOLOGY=kregular:2 works with QUIC only") >= 1);
  auto small = run(3, {"pairs"}, "hypercube", "eager", {"NEXAR_RELAY_BUDGET=512"});
  INFO("stderr:\n" << small.err);
  CHECK(small.end.exit_code != 0);
  CHECK(count_of(small.err, "NEXAR_RELAY_BUDGET=512 is below 1024 bytes (NEXAR_TOPOLOGY=hypercube relays") >= 1);
  auto eager = run(3, {"pairs"}, "hypercube", "eager", {"NEXAR_EAGER_LIMIT=100"});
  INFO("stderr:\n" << eager.err);
  CHECK(eager.end.exit_code != 0);
  CHECK(count_of(eager.err, "NEXAR_EAGER_LIMIT=100 is below 1024 bytes (NEXAR_TOPOLOGY=hypercube relays") >= 1);
  // Rank 1 hypercube, ranks 0 and 2 kregular:2: every rank fails its init naming the
  // difference (undetected, a relay could forward to a rank it holds no link to).
  auto mixed = run(3, {"pairs", "mixed"}, "kregular:2", "eager");
  INFO("stderr:\n" << mixed.err);
  CHECK(mixed.end.exit_code != 0);
  CHECK(count_of(mixed.err, "rank 0 has kregular:2, rank 1 has hypercube") >= 1);
  CHECK(count_of(mixed.err, "rank 1 has hypercube, rank 0 has kregular:2") >= 1);
  CHECK(count_of(mixed.err, "rank 2 has kregular:2, rank 1 has hypercube") >= 1);
}
