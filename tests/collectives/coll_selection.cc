// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Algorithm selection (cost model, NEXAR_ALGO, logging), the algorithm table, and the
// local argument validation.
#include <catch.hpp>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "coll_test_util.h"
#include "collectives/select.h"
#include "collectives/cost_model.h"
#include "core/cores.h"
#include "core/log.h"
#include "core/topology.h"
#include "thread_world.h"

using namespace nexar;
using namespace nexar::coll;
using namespace nexar::coll::test;

namespace {

std::string chosen(CollKind kind, int p, size_t count, CollTransport t = CollTransport::NETWORK) {
  CollArgs a{kind};
  a.count = count;
  a.dtype = NEXAR_UINT8;
  Choice c;
  const Status st = select_algorithm(a, p, t, &c);
  REQUIRE(st.ok());
  return c.algo->name;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// What relaying costs each pattern among p ranks linked by NEXAR_TOPOLOGY=text (the
// communicator's computation: the world's ranks, no host shared).
RouteStretch routes_of(const std::string& text, int p) {
  topology::Topology t;
  REQUIRE(topology::parse(text, p, &t).ok());
  return route_stretch(p, [&](int a, int b) { return topology::hops(t, p, a, b); });
}

// cache: the remembered choices of the communicator with these routes (nullptr: none).
std::string chosen_on(const RouteStretch& routes, CollKind kind, int p, size_t count, ChoiceCache* cache = nullptr) {
  CollArgs a{kind};
  a.count = count;
  a.dtype = NEXAR_UINT8;
  Choice c;
  REQUIRE(select_algorithm(a, p, CollTransport::NETWORK, &c, {}, routes, cache).ok());
  return c.algo->name;
}

}  // namespace

TEST_CASE("NEXAR_ALGO grammar and its errors", "[select]") {
  std::array<std::string, kCollKindCount> out;
  REQUIRE(parse_algo_overrides(" allreduce:ring , broadcast: binomial,,", &out).ok());
  CHECK(out[static_cast<int>(CollKind::ALLREDUCE)] == "ring");
  CHECK(out[static_cast<int>(CollKind::BROADCAST)] == "binomial");
  CHECK(out[static_cast<int>(CollKind::REDUCE)].empty());
  Status st = parse_algo_overrides("allreduce:fast", &out);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(contains(st.message(), "'fast'"));
  CHECK(contains(st.message(), "ring_pipelined"));  // lists the valid names
  st = parse_algo_overrides("allreduc:ring", &out);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(contains(st.message(), "'allreduc'"));
  st = parse_algo_overrides("ring", &out);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(contains(st.message(), "collective:algorithm"));
}

TEST_CASE("a bad NEXAR_ALGO fails every rank before anything is sent", "[select]") {
  ScopedEnv env("NEXAR_ALGO", "allreduce:fastest");
  ThreadWorld w(3);
  float x[4] = {1, 2, 3, 4};
  const auto st = w.run([&](CollContext& ctx) {
    float y[4];
    return select_and_run(ctx, CollArgs{CollKind::ALLREDUCE, x, y, 4, NEXAR_FLOAT32, NEXAR_SUM});
  });
  for (const Status& s : st) CHECK(s.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(w.messages_sent() == 0);
}

TEST_CASE("forcing an algorithm that cannot run is a clear error", "[select]") {
  for (const char* force : {"allgather:recursive_doubling", "reduce_scatter:halving"}) {
    ScopedEnv env("NEXAR_ALGO", force);
    CollArgs a{std::string(force).rfind("allgather", 0) == 0 ? CollKind::ALLGATHER : CollKind::REDUCE_SCATTER};
    Choice c;
    const Status st = select_algorithm(a, 6, CollTransport::NETWORK, &c);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(contains(st.message(), "power-of-two"));
    CHECK(contains(st.message(), "6 ranks"));
    CHECK(select_algorithm(a, 8, CollTransport::NETWORK, &c).ok());
    CHECK(c.forced);
  }
}

TEST_CASE("shared-slot algorithms apply only where the communicator has slots", "[select][slots]") {
  ScopedEnv no_force("NEXAR_ALGO", nullptr);
  CollArgs a{CollKind::ALLREDUCE};
  a.dtype = NEXAR_FLOAT32;
  a.count = 1;
  const SlotCaps none{}, slots{true, 4096, true}, no_cma{true, 4096, false};
  Choice c;
  // The model never picks them without slots, and picks them with.
  REQUIRE(select_algorithm(a, 4, CollTransport::SHM, &c, none).ok());
  CHECK(c.algo->slots == SlotUse::NONE);
  REQUIRE(select_algorithm(a, 4, CollTransport::SHM, &c, slots).ok());
  CHECK(std::string(c.algo->name) == "shm_flat");
  a.count = 1024;  // 4096 bytes: the inline limit itself
  REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, slots).ok());
  CHECK(c.algo->slots != SlotUse::NONE);
  a.count = 1025;
  REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, slots).ok());
  CHECK(std::string(c.algo->name) == "shm_stage");  // 8 ranks: staging beats CMA both ways
  // 2 ranks: the inline limit still goes through the slots, larger vectors through the
  // staging segment (memcpy in and out beat CMA reads and messages) while the call's data
  // fill at most half a 32 MiB cache (2 MiB: 14 MiB), then shm_direct's one CMA read (4
  // MiB: 28 MiB).
  ScopedEnv cache("NEXAR_COST_CACHE_BYTES", "33554432");
  a.count = 1024;
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
  CHECK(std::string(c.algo->name) == "shm_flat");
  for (size_t count : {size_t{1} << 18, size_t{1} << 19}) {
    a.count = count;
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    CHECK(std::string(c.algo->name) == "shm_stage");
  }
  for (size_t count : {size_t{1} << 20, size_t{1} << 21, size_t{1} << 22, size_t{1} << 24}) {
    a.count = count;
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    CHECK(std::string(c.algo->name) == "shm_direct");
  }
  a.count = 1 << 18;
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, no_cma).ok());
  CHECK(c.algo->slots == SlotUse::NONE);
  // Forced where they cannot run: a clear NEXAR_ERR_INVALID_ARGUMENT saying why.
  {
    ScopedEnv env("NEXAR_ALGO", "allreduce:shm_flat");
    Status st = select_algorithm(a, 3, CollTransport::NETWORK, &c, none);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(contains(st.message(), "shared-memory collective slots"));
    st = select_algorithm(a, 3, CollTransport::SHM, &c, slots);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(contains(st.message(), "NEXAR_SHM_COLL_INLINE"));
    CHECK(select_algorithm(a, 1, CollTransport::SHM, &c, none).ok());  // one rank needs no slots
  }
  {
    ScopedEnv env("NEXAR_ALGO", "allreduce:shm_direct");
    const Status st = select_algorithm(a, 3, CollTransport::SHM, &c, no_cma);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(contains(st.message(), "CMA"));
  }
}

TEST_CASE("the cost model picks latency-bound algorithms for small messages, bandwidth-bound for large", "[select]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  CHECK(chosen(CollKind::ALLREDUCE, 8, 8) == "recursive_doubling");
  CHECK(chosen(CollKind::ALLREDUCE, 8, 256 << 10) == "halving_doubling");
  CHECK(contains(chosen(CollKind::ALLREDUCE, 7, size_t{256} << 20), "ring"));
  CHECK(chosen(CollKind::BROADCAST, 8, 8) == "binomial");
  CHECK(chosen(CollKind::BROADCAST, 8, 64 << 20) == "scatter_allgather");
  CHECK(chosen(CollKind::REDUCE, 8, 8) == "binomial");
  CHECK(chosen(CollKind::REDUCE, 8, 64 << 20) == "reduce_scatter_gather");
  CHECK(chosen(CollKind::ALLGATHER, 8, 100) == "recursive_doubling");
  CHECK(chosen(CollKind::ALLGATHER, 6, 100) == "ring");  // the other does not apply
  CHECK(chosen(CollKind::REDUCE_SCATTER, 5, 100) == "ring");
}

TEST_CASE("cost parameters are overridable, per transport", "[select]") {
  ScopedEnv algo("NEXAR_ALGO", nullptr);
  const size_t big = size_t{64} << 20;
  CHECK(contains(chosen(CollKind::ALLREDUCE, 8, big), "ring"));
  const std::string shm_before = chosen(CollKind::ALLREDUCE, 8, big, CollTransport::SHM);
  {
    // Free bandwidth and reduction: only latency counts, so the fewest rounds win.
    ScopedEnv bw("NEXAR_COST_BANDWIDTH_GBPS", "1e12"), rd("NEXAR_COST_REDUCE_GBPS", "1e12");
    CHECK(chosen(CollKind::ALLREDUCE, 8, big) == "recursive_doubling");
  }
  {
    ScopedEnv bw("NEXAR_COST_BANDWIDTH_GBPS", "1e12");  // network only: SHM's choice stays
    CHECK(chosen(CollKind::ALLREDUCE, 8, big, CollTransport::SHM) == shm_before);
  }
  ScopedEnv lat("NEXAR_COST_SHM_LATENCY_US", "1e6");
  CHECK(chosen(CollKind::BROADCAST, 8, big, CollTransport::SHM) == "binomial");
  CHECK(chosen(CollKind::BROADCAST, 8, big, CollTransport::NETWORK) == "scatter_allgather");
}

TEST_CASE("the choice is logged at INFO under COLL", "[select]") {
  char path[] = "/tmp/nexar-coll-log-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  {
    ScopedEnv lvl("NEXAR_DEBUG", "INFO"), file("NEXAR_DEBUG_FILE", path), algo("NEXAR_ALGO", "allreduce:ring");
    log_reload();
    ThreadWorld w(2);
    const auto st = w.run([&](CollContext& ctx) {
      int32_t x = 1, y = 0;
      return select_and_run(ctx, CollArgs{CollKind::ALLREDUCE, &x, &y, 1, NEXAR_INT32, NEXAR_SUM});
    });
    for (const Status& s : st) REQUIRE(s.ok());
  }
  log_reload();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  CHECK(contains(text.str(), "INFO COLL allreduce: 4 bytes, 2 ranks, network -> ring"));
  CHECK(contains(text.str(), "forced by NEXAR_ALGO"));
}

TEST_CASE("the table: every collective has an algorithm for every world size", "[select]") {
  const std::string text = describe_algorithms();
  for (const AlgoDesc& d : algo_table()) CHECK(contains(text, d.name));
  ScopedEnv algo("NEXAR_ALGO", nullptr);
  for (int k = 0; k < kCollKindCount; ++k)
    for (int p = 1; p <= 17; ++p) {
      CollArgs a{static_cast<CollKind>(k)};
      Choice c;
      INFO(coll_kind_name(a.kind) << " p=" << p);
      CHECK(select_algorithm(a, p, CollTransport::NETWORK, &c).ok());
    }
}

TEST_CASE("the kind table: the bytes each kind moves, the buffers each rank uses", "[select]") {
  size_t counts[3] = {1, 2, 3};
  void* bufs[3] = {};
  CollArgs a{CollKind::ALLREDUCE, nullptr, nullptr, 10, NEXAR_INT32, NEXAR_SUM};
  CHECK(collective_bytes(a, 4) == 40);
  a.kind = CollKind::ALLGATHER;  // one block per rank
  CHECK(collective_bytes(a, 4) == 160);
  a.kind = CollKind::BARRIER;
  CHECK(collective_bytes(a, 4) == 0);
  a.kind = CollKind::ALLREDUCE_BUCKETED;
  a.bufs = bufs;
  a.counts = counts;
  a.nbufs = 3;
  CHECK(collective_bytes(a, 4) == 24);
  a.kind = CollKind::ALLTOALLV;
  a.sendcounts = counts;
  CHECK(collective_bytes(a, 3) == 24);
  // Root-only buffers: the root's spans size * count, the others' nothing.
  CHECK(extent_elements(kind_traits(CollKind::GATHER).out, 5, 4, true) == 20);
  CHECK(extent_elements(kind_traits(CollKind::GATHER).out, 5, 4, false) == 0);
  CHECK(extent_elements(kind_traits(CollKind::BROADCAST).in, 5, 4, false) == 0);
  CHECK(kind_traits(CollKind::BROADCAST).input_in_recvbuf);
  // Every kind's name is its NEXAR_ALGO spelling, once.
  for (int k = 0; k < kCollKindCount; ++k) {
    const CollKindTraits& t = kind_traits(static_cast<CollKind>(k));
    std::array<std::string, kCollKindCount> forced;
    const AlgoDesc* first = nullptr;
    for (const AlgoDesc& d : algo_table())
      if (d.kind == t.kind && !first) first = &d;
    REQUIRE(first);
    INFO(t.name);
    REQUIRE(parse_algo_overrides(std::string(t.name) + ":" + first->name, &forced).ok());
    CHECK(forced[k] == first->name);
  }
}

TEST_CASE("argument validation names the argument and its value", "[validate]") {
  int32_t buf[8] = {};
  auto check = [](const CollArgs& a, int rank, int size, const char* part) {
    const Status st = validate_collective_args(a, rank, size);
    INFO(st.to_string());
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(contains(st.message(), part));
  };
  check(CollArgs{CollKind::ALLREDUCE, buf, buf, 2, static_cast<nexar_dtype_t>(99), NEXAR_SUM}, 0, 2, "dtype 99");
  check(CollArgs{CollKind::ALLREDUCE, buf, buf, 2, NEXAR_INT32, static_cast<nexar_op_t>(-3)}, 0, 2, "op -3");
  check(CollArgs{CollKind::BROADCAST, nullptr, buf, 2, NEXAR_INT32, NEXAR_SUM, 2}, 0, 2, "root 2");
  check(CollArgs{CollKind::GATHER, buf, buf, 2, NEXAR_INT32, NEXAR_SUM, -1}, 0, 2, "root -1");
  check(CollArgs{CollKind::ALLREDUCE, nullptr, buf, 2, NEXAR_INT32, NEXAR_SUM}, 0, 2, "sendbuf is NULL with count 2");
  check(CollArgs{CollKind::REDUCE, buf, nullptr, 2, NEXAR_INT32, NEXAR_SUM, 1}, 1, 2, "recvbuf is NULL");
  // A broadcast's data is in recvbuf, at the root too (sendbuf is not read).
  check(CollArgs{CollKind::BROADCAST, buf, nullptr, 2, NEXAR_INT32, NEXAR_SUM, 0}, 0, 2, "recvbuf is NULL with count 2");
  check(CollArgs{CollKind::BROADCAST, buf, nullptr, 2, NEXAR_INT32, NEXAR_SUM, 0}, 1, 2, "recvbuf is NULL with count 2");
  check(CollArgs{CollKind::ALLGATHER, buf, buf, SIZE_MAX / 8, NEXAR_INT32, NEXAR_SUM}, 0, 4, "count 2305843009213693951");
  // Byte sizes that fit size_t but no address space (issue 19: these crashed in a transport).
  check(CollArgs{CollKind::ALLREDUCE, buf, buf, SIZE_MAX / 2, NEXAR_INT8, NEXAR_SUM}, 0, 2, "largest possible buffer");
  check(CollArgs{CollKind::BROADCAST, nullptr, buf, SIZE_MAX / 16, NEXAR_INT8, NEXAR_SUM}, 0, 2, "count 1152921504606846975");
  check(CollArgs{CollKind::ALLTOALL, buf, buf, (size_t{1} << 53) + 1, NEXAR_INT32, NEXAR_SUM}, 0, 2, "x 2 ranks");
  check(CollArgs{CollKind::GATHER, buf, nullptr, size_t{1} << 54, NEXAR_INT8, NEXAR_SUM, 1}, 0, 8, "x 8 ranks");  // non-root too
  CHECK(validate_collective_args(CollArgs{CollKind::ALLREDUCE, buf, buf, kMaxBufferBytes / 8, NEXAR_INT64, NEXAR_SUM}, 0, 2).ok());
  CHECK_FALSE(validate_collective_args(CollArgs{CollKind::ALLREDUCE, buf, buf, kMaxBufferBytes / 8 + 1, NEXAR_INT64, NEXAR_SUM}, 0, 2).ok());
  // Counts below 2^32 are compared without dividing (check_count): the same limit, exactly.
  size_t n = 0;
  CHECK(check_count(size_t{1} << 31, size_t{1} << 22, 8, &n).ok());  // 2^56 bytes: the limit
  CHECK(n == size_t{1} << 34);
  CHECK_FALSE(check_count((size_t{1} << 31) + 1, size_t{1} << 22, 8, &n).ok());
  CHECK_FALSE(check_count(size_t{1} << 31, size_t{1} << 23, 8, &n).ok());
  CHECK_FALSE(check_count(4, 2, 0, &n).ok());  // no element size
  CHECK(check_count(3, 0, 4, &n).ok());        // no copies counts as one
  CHECK(n == 12);
  check(CollArgs{CollKind::ALLTOALL, buf, buf, (size_t{1} << 31) + 1, NEXAR_INT64, NEXAR_SUM}, 0, 1 << 22, "x 4194304 ranks");
  // Fine: count 0 with NULLs, unused buffers NULL, unused op/root ignored.
  CHECK(validate_collective_args(CollArgs{CollKind::ALLREDUCE, nullptr, nullptr, 0, NEXAR_INT32, NEXAR_SUM}, 0, 2).ok());
  CHECK(validate_collective_args(CollArgs{CollKind::GATHER, buf, nullptr, 2, NEXAR_INT32, NEXAR_SUM, 1}, 0, 2).ok());
  CHECK(validate_collective_args(CollArgs{CollKind::SCATTER, nullptr, buf, 2, NEXAR_INT32, NEXAR_SUM, 1}, 0, 2).ok());
  CHECK(validate_collective_args(CollArgs{CollKind::BROADCAST, nullptr, buf, 2, NEXAR_INT32,
                                          static_cast<nexar_op_t>(77), 1}, 0, 2).ok());
  CHECK(validate_collective_args(CollArgs{CollKind::BARRIER}, 1, 2).ok());
  void* bufs[2] = {buf, nullptr};
  size_t counts[2] = {1, 3};
  CollArgs b{CollKind::ALLREDUCE_BUCKETED};
  b.dtype = NEXAR_INT32;
  b.bufs = bufs;
  b.counts = counts;
  b.nbufs = 2;
  check(b, 0, 2, "bufs[1] is NULL with counts[1] = 3");
  counts[1] = 0;
  CHECK(validate_collective_args(b, 0, 2).ok());
  counts[1] = kMaxBufferBytes / 4;  // with counts[0] = 1: one element too many
  bufs[1] = buf;
  check(b, 0, 2, "counts[1]");
}

TEST_CASE("the model counts the cores the communicator agreed on, not this process's", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", "allreduce:shm_flat");
  CollArgs a{CollKind::ALLREDUCE};
  a.dtype = NEXAR_FLOAT32;
  a.count = 1;
  Choice one_core, eight_cores;
  REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &one_core, SlotCaps{true, 4096, true, 1}).ok());
  REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &eight_cores, SlotCaps{true, 4096, true, 8}).ok());
  // 8 ranks on 1 core: a slot round waits for each of them to be scheduled (8x the round).
  CHECK(one_core.cost_us > 4 * eight_cores.cost_us);
}

TEST_CASE("every collective has a shared-memory algorithm the model picks where slots and CMA exist",
          "[select][slots]") {
  // A 64 MiB cache: reduce's 25 MiB touched (8 ranks, 1 MiB) fill under half of it.
  ScopedEnv env("NEXAR_ALGO", nullptr), llc("NEXAR_COST_CACHE_BYTES", "67108864");
  const SlotCaps slots{true, 4096, true, 8};
  for (CollKind k : {CollKind::BROADCAST, CollKind::ALLGATHER, CollKind::REDUCE_SCATTER, CollKind::ALLTOALL,
                     CollKind::REDUCE, CollKind::GATHER, CollKind::SCATTER}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    a.count = 1 << 18;  // 1 MiB per block
    Choice c;
    INFO(coll_kind_name(k));
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, slots).ok());
    // A broadcast whose ranks each hold a core lets the root copy too (shm_split); a reduce
    // stages its inputs as allreduce does (shm_stage: one slot round fewer than shm_direct).
    CHECK(std::string(c.algo->name) ==
          (k == CollKind::BROADCAST ? "shm_split" : k == CollKind::REDUCE ? "shm_stage" : "shm_direct"));
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{}).ok());
    CHECK(c.algo->slots == SlotUse::NONE);
  }
}

TEST_CASE("reduce shm_direct at 2 ranks with a core each moves two thirds of the vector on its longest path",
          "[select][slots]") {
  // The other rank writes its third of the result into the root's recvbuf: each rank moves
  // 2n/3, where the root used to read its half and then the other half's result (n, as
  // allreduce shm_direct's ranks do). Ranks sharing a core still move 2n(p-1)/p in turn.
  ScopedEnv env("NEXAR_ALGO", "allreduce:shm_direct,reduce:shm_direct");
  CollArgs a{CollKind::ALLREDUCE};
  a.dtype = NEXAR_FLOAT32;
  a.count = size_t{1} << 22;  // 16 MiB
  Choice all, red, all_crowded, red_crowded;
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &all, SlotCaps{true, 4096, true, 2}).ok());
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &all_crowded, SlotCaps{true, 4096, true, 1}).ok());
  a.kind = CollKind::REDUCE;
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &red, SlotCaps{true, 4096, true, 2}).ok());
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &red_crowded, SlotCaps{true, 4096, true, 1}).ok());
  CHECK(red.cost_us < all.cost_us);
  CHECK(red_crowded.cost_us > all_crowded.cost_us);
  // The model's own choice at 16 MiB: shm_direct (shm_stage's copies run at memory speed there).
  ScopedEnv chosen("NEXAR_ALGO", nullptr);
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &red, SlotCaps{true, 4096, true, 2}).ok());
  CHECK(std::string(red.algo->name) == "shm_direct");
}

TEST_CASE("shm_stage at 2 ranks with a core each pays where the other rank's writes left its core's cache",
          "[select][slots]") {
  // Root's path in shm_stage: the other rank's staged half and its half of the result. While
  // each rank's 4n fits its core's own 1 MiB cache those lines are still dirty there and
  // cross as a CMA read's bytes do: shm_direct, which moves 2n/3, wins (reduce 256 KiB
  // 19-25 us against 32-39); at 16 KiB shm_stage's round fewer wins (3.1-3.7 against
  // 4.6-6.1 us), at 1-2 MiB its copies from the shared cache (64-78 against 85-98 us at 1
  // MiB); past half the 32 MiB cache (4 MiB: 28 MiB touched) shm_direct again (350-500
  // against 500-834 us). The old model priced every staged byte as cached: shm_stage from
  // 8 KiB to 4 MiB, for reduce and allreduce.
  ScopedEnv env("NEXAR_ALGO", nullptr), llc("NEXAR_COST_CACHE_BYTES", "33554432"),
      own("NEXAR_COST_PRIVATE_CACHE_BYTES", "1048576");
  const SlotCaps slots{true, 4096, true, 2};
  for (CollKind k : {CollKind::REDUCE, CollKind::ALLREDUCE}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    for (size_t kib : {16, 64, 256, 1024, 2048, 4096}) {
      a.count = kib << 8;
      Choice c;
      INFO(coll_kind_name(k) << " " << kib << " KiB");
      REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
      // allreduce: its other algorithms' allgather phase reads what other ranks reduced in
      // the call too (shm_direct's, halving_doubling's), so shm_stage up to 2 MiB.
      const bool stage = k == CollKind::ALLREDUCE ? kib <= 2048 : kib == 16 || kib == 1024 || kib == 2048;
      CHECK(std::string(c.algo->name) == (stage ? "shm_stage" : "shm_direct"));
    }
  }
  // Ranks that share a core read each other's lines from its own cache: no extra.
  CostModel m;
  m.beta_us_per_byte = 1.0 / 5000;
  m.same_host = true;
  m.cores = 1;
  CHECK(m.remote_write_extra(4096, 2) == 0);
  m.cores = 2;
  CHECK(m.remote_write_extra(4096, 2) > 0);
  CHECK(m.remote_write_extra(4.0 * (1 << 20), 2) == 0);
  m.same_host = false;  // the network's model: no core caches between hosts
  CHECK(m.remote_write_extra(4096, 2) == 0);
  // The parameter's default is this CPU's own cache, from sysfs.
  ScopedEnv unset("NEXAR_COST_PRIVATE_CACHE_BYTES", nullptr);
  if (private_cache_bytes() > 0) CHECK(cost_model_from_params(CollTransport::SHM).private_cache_bytes == private_cache_bytes());
}

TEST_CASE("broadcast shm_split only while every rank has a core of its own", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  CollArgs a{CollKind::BROADCAST};
  a.dtype = NEXAR_FLOAT32;
  Choice c;
  for (size_t count : {size_t{1} << 14, size_t{1} << 18, size_t{1} << 22}) {  // 64 KiB, 1 MiB, 16 MiB
    a.count = count;
    INFO("count " << count);
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(std::string(c.algo->name) == "shm_split");
    // 8 ranks on 2 cores: the root's writes would take a reader's core. Up to
    // NEXAR_SHM_PUSH_MAX (16 MiB) the root pushes its buffer: one slot round, and the
    // readers copy with memcpy where shm_direct's CMA reads pin every page (16 MiB:
    // 8-20 ms pushed against 28-45 ms read directly).
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(std::string(c.algo->name) == "shm_push");
  }
  a.count = size_t{1} << 24;  // 64 MiB: more than NEXAR_SHM_PUSH_MAX
  REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
  CHECK(std::string(c.algo->name) == "shm_direct");
  a.count = 1024;  // 4 KiB: inline, one slot round
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
  CHECK(std::string(c.algo->name) == "shm_flat");
}

TEST_CASE("shm_push with more ranks than cores, up to NEXAR_SHM_PUSH_MAX; shm_direct with a core per rank",
          "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  for (CollKind k : {CollKind::BROADCAST, CollKind::ALLGATHER, CollKind::ALLTOALL}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    a.count = 1 << 15;  // 128 KiB per rank's block (a 1 MiB sendbuf for alltoall at np 8)
    Choice c;
    INFO(coll_kind_name(k));
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(std::string(c.algo->name) == "shm_push");
    // Every rank on a core of its own: the copy out crosses caches, the push does not pay.
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 8}).ok());
    CHECK(std::string(c.algo->name) != "shm_push");
    {
      ScopedEnv limit("NEXAR_SHM_PUSH_MAX", "65536");  // less than a rank would push
      REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
      CHECK(std::string(c.algo->name) != "shm_push");
      ScopedEnv force("NEXAR_ALGO", (std::string(coll_kind_name(k)) + ":shm_push").c_str());
      const Status st = select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2});
      CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
      CHECK(contains(st.message(), "NEXAR_SHM_PUSH_MAX"));
    }
    // 16 MiB on the host's 8 ranks (alltoall: a 16 MiB sendbuf per rank) still pushes.
    a.count = k == CollKind::BROADCAST ? size_t{1} << 22 : size_t{1} << 19;
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(std::string(c.algo->name) == "shm_push");
  }
}

TEST_CASE("over shared memory a message above the eager limit costs a rendezvous", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  const SlotCaps slots{true, 4096, true, 2};
  for (CollKind k : {CollKind::ALLGATHER, CollKind::ALLTOALL, CollKind::REDUCE_SCATTER}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    Choice c;
    INFO(coll_kind_name(k));
    a.count = 1 << 17;  // 512 KiB blocks at np 2: shm_direct's reads, not rendezvous messages
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    CHECK(std::string(c.algo->name) == "shm_direct");
    a.count = 1 << 10;  // 4 KiB blocks: eager messages, one latency each
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    CHECK(c.algo->slots == SlotUse::NONE);
    {
      ScopedEnv eager("NEXAR_SHM_EAGER", "2048");  // now they are rendezvous too
      REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
      CHECK(c.algo->slots != SlotUse::NONE);
    }
  }
}

TEST_CASE("over shared memory an eager message's bytes are copied twice, a direct read's once", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  for (CollKind k : {CollKind::ALLGATHER, CollKind::ALLTOALL, CollKind::REDUCE_SCATTER}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    Choice c;
    INFO(coll_kind_name(k));
    // 2 ranks with a core each: 16 and 32 KiB blocks (a 64 KiB allgather) are read
    // directly, where the sender's copy into the ring made the messages dearer.
    for (size_t count : {size_t{1} << 12, size_t{1} << 13}) {
      a.count = count;
      REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
      CHECK(std::string(c.algo->name) == "shm_direct");
    }
    // 4 KiB blocks: the system call of a direct read costs more than the copy saved.
    a.count = 1 << 10;
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(c.algo->slots == SlotUse::NONE);
    // 8 ranks on 2 cores keep the pushed segments.
    a.count = 1 << 13;
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(std::string(c.algo->name) == (k == CollKind::REDUCE_SCATTER ? "shm_direct" : "shm_push"));
  }
}

TEST_CASE("one element per rank: allgather, reduce_scatter, alltoall, reduce, gather and scatter go through the slots inline",
          "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  const SlotCaps slots{true, 4096, true, 2};
  for (CollKind k : {CollKind::ALLGATHER, CollKind::REDUCE_SCATTER, CollKind::ALLTOALL, CollKind::REDUCE,
                     CollKind::GATHER, CollKind::SCATTER}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    a.count = 1;
    Choice c;
    INFO(coll_kind_name(k));
    for (int p : {2, 8}) {  // one slot round beats shm_direct's two, its p - 1 reads, a tree's messages
      REQUIRE(select_algorithm(a, p, CollTransport::SHM, &c, slots).ok());
      CHECK(std::string(c.algo->name) == "shm_flat");
    }
    // The slot holds this rank's input: one block for allgather, gather and reduce, p blocks
    // for the others (scatter: the root's).
    const bool p_blocks = k == CollKind::REDUCE_SCATTER || k == CollKind::ALLTOALL || k == CollKind::SCATTER;
    if (k == CollKind::ALLGATHER || k == CollKind::REDUCE_SCATTER || k == CollKind::ALLTOALL) {
      a.count = 128;  // 512 B a block, 4 KiB for 8 blocks: the inline limit itself
      REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, slots).ok());
      CHECK(std::string(c.algo->name) == "shm_flat");
      // 8 ranks on 2 cores: pushed data saves shm_direct's second round; reduce_scatter's
      // three halving steps cost less than shm_direct's 28 CMA calls a core.
      a.count = 129;
      REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, slots).ok());
      CHECK(std::string(c.algo->name) ==
            (k == CollKind::ALLGATHER ? "shm_flat" : k == CollKind::ALLTOALL ? "shm_push" : "halving"));
    }
    ScopedEnv force("NEXAR_ALGO", (std::string(coll_kind_name(k)) + ":shm_flat").c_str());
    a.count = p_blocks ? 512 : 1024;  // 4096 B in the slot at 2 ranks: it fits
    CHECK(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    a.count += 1;  // too large for the slot
    const Status st = select_algorithm(a, 2, CollTransport::SHM, &c, slots);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(contains(st.message(), "NEXAR_SHM_COLL_INLINE"));
  }
}

TEST_CASE("staged copies cost memory speed beyond the cache; over shared memory no reduction hides", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  CollArgs a{CollKind::ALLREDUCE};
  a.dtype = NEXAR_FLOAT32;
  a.count = size_t{1} << 22;  // 16 MiB at 2 ranks: 112 MiB touched by shm_stage
  const SlotCaps slots{true, 4096, true, 2};
  Choice c;
  {
    ScopedEnv cache("NEXAR_COST_CACHE_BYTES", "1073741824");  // all of it cached: staging pays
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    CHECK(std::string(c.algo->name) == "shm_stage");
  }
  {
    ScopedEnv cache("NEXAR_COST_CACHE_BYTES", "33554432");
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    CHECK(std::string(c.algo->name) == "shm_direct");
  }
  // The parameter's default is this CPU's largest cache.
  {
    ScopedEnv cache("NEXAR_COST_CACHE_BYTES", nullptr);
    CHECK(cost_model_from_params(CollTransport::SHM).cache_bytes == last_level_cache_bytes());
    CHECK(last_level_cache_bytes() > 0);
  }
  // Over shared memory the receiving ranks move a message's bytes themselves, so a
  // pipelined ring hides no reduction behind them: 2 ranks and 32 MiB take shm_direct's
  // reads (a model that hid it picked ring_pipelined: 43-62 ms against 9.3-12.1).
  a.count = size_t{1} << 23;
  ScopedEnv cache("NEXAR_COST_CACHE_BYTES", "33554432");
  REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
  CHECK(std::string(c.algo->name) == "shm_direct");
}

TEST_CASE("with more ranks than cores on one host the message algorithms pay the crowding too", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  // 8 ranks on 2 cores, 64 KiB gathered / reduced: each message round waits for its
  // partner to be scheduled as each slot round waits for its members, so shm_push's one
  // slot round beats the three message rounds of recursive_doubling; reduce_scatter's
  // halving still beats shm_direct, whose CMA calls the crowding prices too.
  for (CollKind k : {CollKind::ALLGATHER, CollKind::REDUCE_SCATTER}) {
    CollArgs a{k};
    a.dtype = NEXAR_FLOAT32;
    a.count = 2048;  // 8 KiB per block, 64 KiB in all
    Choice c;
    INFO(coll_kind_name(k));
    REQUIRE(select_algorithm(a, 8, CollTransport::SHM, &c, SlotCaps{true, 4096, true, 2}).ok());
    CHECK(std::string(c.algo->name) == (k == CollKind::ALLGATHER ? "shm_push" : "halving"));
    // The latency scales with ranks per core, only beyond one rank per core.
    CostModel m;
    m.cores = 2;
    CHECK(m.crowded_messages(8).alpha_us == 4 * m.alpha_us);
    CHECK(m.crowded_messages(2).alpha_us == m.alpha_us);
  }
}

TEST_CASE("reduce_scatter with more ranks than cores: halving for small inputs, shm_direct for large", "[select][slots]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  // Measured on 2 cores (2026-11-28, ba8a11d, docs/collectives.md): 8 ranks, halving
  // 42-50 us at 16 KiB and 90-112 at 128 KiB against shm_direct's 66 and 103, shm_direct
  // 149 at 256 KiB against 166-189; 4 ranks, halving 15 us at 16 KiB against 23,
  // shm_direct 39-42 at 128 KiB against 52-54; 3 ranks, ring 8-9 us at 6-12 KiB against
  // shm_direct's 12.
  const SlotCaps two_cores{true, 4096, true, 2};
  const auto chosen_rs = [&](int p, size_t bytes) {
    CollArgs a{CollKind::REDUCE_SCATTER};
    a.dtype = NEXAR_FLOAT32;
    a.count = bytes / (4 * static_cast<size_t>(p));
    Choice c;
    REQUIRE(select_algorithm(a, p, CollTransport::SHM, &c, two_cores).ok());
    return std::string(c.algo->name);
  };
  for (size_t kib : {16, 64, 128}) CHECK(chosen_rs(8, kib << 10) == "halving");
  for (size_t kib : {256, 1024}) CHECK(chosen_rs(8, kib << 10) == "shm_direct");
  CHECK(chosen_rs(4, 16 << 10) == "halving");
  for (size_t kib : {64, 128, 256, 1024}) CHECK(chosen_rs(4, kib << 10) == "shm_direct");
  CHECK(chosen_rs(3, 12 << 10) == "ring");
  // A core per rank: unchanged (2 ranks read directly from 32 KiB on).
  CHECK(chosen_rs(2, 64 << 10) == "shm_direct");
}

TEST_CASE("a pattern's stretch is the mean over its rounds of the longest route", "[select][topology]") {
  // Every pair linked: nothing stretches.
  for (double s : routes_of("full", 16).of) CHECK(s == 1.0);
  // Hypercube of 16: partners r ^ 2^i are neighbours; r -> r + 1 is 4 hops for 7 -> 8 and 15 -> 0.
  const RouteStretch cube = routes_of("hypercube", 16);
  CHECK(cube[PeerPattern::kXorFold] == 1.0);
  CHECK(cube[PeerPattern::kXor] == 1.0);
  CHECK(cube[PeerPattern::kBinomial] == 1.0);  // rank 0's tree: v and v + 2^i differ in one bit
  CHECK(cube[PeerPattern::kRing] == 4.0);
  CHECK(cube[PeerPattern::kShift] > 1.0);
  // kregular:4 of 16 (r +- 1, r +- 2): the ring follows edges; recursive doubling's
  // partners at distance 1, 2, 4, 8 are 1, 1, 2 and 4 hops away.
  const RouteStretch k4 = routes_of("kregular:4", 16);
  CHECK(k4[PeerPattern::kRing] == 1.0);
  CHECK(k4[PeerPattern::kXorFold] == 2.0);
  CHECK(k4[PeerPattern::kShift] == 2.0);
  CHECK(k4[PeerPattern::kPairwise] > 2.0);  // every pair: up to 4 hops
  CHECK(k4[PeerPattern::kNone] == 1.0);
  // A non-power of two folds its extra ranks in: rank 2i and 2i + 1 are ring neighbours.
  CHECK(routes_of("kregular:4", 12)[PeerPattern::kXorFold] > 1.0);
}

TEST_CASE("the model picks algorithms that follow the topology's edges", "[select][topology]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  const size_t big = size_t{64} << 20;
  const RouteStretch full = routes_of("full", 16), cube = routes_of("hypercube", 16), k4 = routes_of("kregular:4", 16);
  // Fully linked, 16 ranks: 256 KiB go by halving-doubling (8 rounds against the ring's 30).
  CHECK(chosen_on(full, CollKind::ALLREDUCE, 16, 256 << 10) == "halving_doubling");
  // Hypercube: never a ring (its r -> r + 1 crosses up to 4 links), at any size.
  for (size_t n : {size_t{8}, size_t{256} << 10, big}) {
    INFO(n << " bytes");
    CHECK_FALSE(contains(chosen_on(cube, CollKind::ALLREDUCE, 16, n), "ring"));
    CHECK(chosen_on(cube, CollKind::ALLGATHER, 16, n / 16 + 1) == "recursive_doubling");
    CHECK(chosen_on(cube, CollKind::REDUCE_SCATTER, 16, n / 16 + 1) == "halving");
  }
  CHECK(chosen_on(cube, CollKind::BROADCAST, 16, big) == "binomial");  // scatter_allgather's ring pays 4 hops
  // kregular:4: large vectors go round the ring, whose neighbours are linked, where
  // halving-doubling's distant partners would be relayed; small ones still take the
  // fewest rounds (8 hops of recursive doubling against the ring's 30 messages).
  CHECK(contains(chosen_on(k4, CollKind::ALLREDUCE, 16, big), "ring"));
  CHECK(chosen_on(k4, CollKind::ALLGATHER, 16, big / 16) == "ring");
  CHECK(chosen_on(k4, CollKind::REDUCE_SCATTER, 16, big / 16) == "ring");
  CHECK(chosen_on(k4, CollKind::ALLREDUCE, 16, 8) == "recursive_doubling");
  // Pairwise alltoall has no alternative: it pays its hops.
  CollArgs a{CollKind::ALLTOALL};
  a.count = 1024;
  a.dtype = NEXAR_UINT8;
  Choice direct, relayed;
  REQUIRE(select_algorithm(a, 16, CollTransport::NETWORK, &direct, {}, full).ok());
  REQUIRE(select_algorithm(a, 16, CollTransport::NETWORK, &relayed, {}, k4).ok());
  CHECK(std::string(relayed.algo->name) == "pairwise");
  CHECK(relayed.cost_us == Approx(direct.cost_us * k4[PeerPattern::kPairwise]));
  // A communicator's routes never change, so its remembered choice does not compare them:
  // each communicator (topology) has its own cache, and a cache keeps its first choice.
  ChoiceCache on_full, on_k4;
  CHECK(chosen_on(full, CollKind::ALLGATHER, 16, big / 16, &on_full) == "recursive_doubling");
  CHECK(chosen_on(k4, CollKind::ALLGATHER, 16, big / 16, &on_k4) == "ring");
  CHECK(chosen_on(full, CollKind::ALLGATHER, 16, big / 16, &on_full) == "recursive_doubling");
  CHECK(chosen_on(k4, CollKind::ALLGATHER, 16, big / 16, &on_full) == "recursive_doubling");
}

TEST_CASE("a communicator's remembered choice holds only for the same inputs", "[select]") {
  ScopedEnv no_force("NEXAR_ALGO", nullptr);
  ChoiceCache cache;
  CollArgs a{CollKind::ALLREDUCE, nullptr, nullptr, 1, NEXAR_FLOAT32, NEXAR_SUM};
  const SlotCaps none{}, slots{true, 4096, true};
  const auto pick = [&](int p, const SlotCaps& caps) {
    Choice c;
    REQUIRE(select_algorithm(a, p, CollTransport::SHM, &c, caps, {}, &cache).ok());
    return std::string(c.algo->name);
  };
  CHECK(pick(4, slots) == "shm_flat");
  CHECK(pick(4, slots) == "shm_flat");   // remembered
  CHECK(pick(4, none) != "shm_flat");    // other slots: chosen anew
  CHECK(pick(1, none) == "one_rank");    // other ranks
  a.count = 1 << 18;                      // another size
  CHECK(pick(2, slots) == "shm_stage");
  {
    ScopedEnv force("NEXAR_ALGO", "allreduce:ring");  // new parameters
    CHECK(pick(2, slots) == "ring");
  }
  CHECK(pick(2, slots) == "shm_stage");
  a.dtype = NEXAR_INT8;  // another dtype: a quarter of the bytes
  a.count = 4;
  CHECK(pick(2, slots) == "shm_flat");
}

TEST_CASE("one rank: every fixed-count collective is a local copy, forced algorithms still run", "[select]") {
  ScopedEnv no_force("NEXAR_ALGO", nullptr);
  for (int k = 0; k < kCollKindCount; ++k) {
    const auto kind = static_cast<CollKind>(k);
    if (is_vector_kind(kind) || kind == CollKind::ALLREDUCE_BUCKETED) continue;
    for (size_t count : {size_t{1}, size_t{1} << 22}) {
      CollArgs a{kind, nullptr, nullptr, count, NEXAR_FLOAT32, NEXAR_SUM};
      Choice c;
      INFO(coll_kind_name(kind) << " count " << count);
      REQUIRE(select_algorithm(a, 1, CollTransport::SHM, &c, SlotCaps{true, 4096, true}).ok());
      CHECK(std::string(c.algo->name) == "one_rank");
      REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, SlotCaps{true, 4096, true}).ok());
      CHECK(std::string(c.algo->name) != "one_rank");
    }
  }
  ScopedEnv force("NEXAR_ALGO", "allreduce:ring");
  CollArgs a{CollKind::ALLREDUCE, nullptr, nullptr, 4, NEXAR_FLOAT32, NEXAR_SUM};
  Choice c;
  REQUIRE(select_algorithm(a, 1, CollTransport::SHM, &c).ok());
  CHECK(std::string(c.algo->name) == "ring");
  ScopedEnv force_one("NEXAR_ALGO", "allreduce:one_rank");
  const Status st = select_algorithm(a, 2, CollTransport::SHM, &c);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(contains(st.message(), "only on a communicator of one rank"));
}

TEST_CASE("one rank runs one_rank without choosing unless NEXAR_ALGO says otherwise", "[select]") {
  ScopedEnv no_force("NEXAR_ALGO", nullptr);
  ChoiceCache cache;
  const auto algo = [&](CollKind kind) {
    const AlgoDesc* d = one_rank_algo(kind, &cache);
    return std::string(d ? d->name : "(choose)");
  };
  for (int k = 0; k < kCollKindCount; ++k) {
    const auto kind = static_cast<CollKind>(k);
    INFO(coll_kind_name(kind));
    const bool served = !is_vector_kind(kind) && kind != CollKind::ALLREDUCE_BUCKETED;
    CHECK(algo(kind) == (served ? "one_rank" : "(choose)"));
  }
  {
    // A forced algorithm of one kind (new parameters) leaves that kind to select_and_run.
    ScopedEnv force("NEXAR_ALGO", "allreduce:ring");
    CHECK(algo(CollKind::ALLREDUCE) == "(choose)");
    CHECK(algo(CollKind::BARRIER) == "one_rank");
  }
  CHECK(algo(CollKind::ALLREDUCE) == "one_rank");
  {
    // A malformed NEXAR_ALGO: every kind goes through the selection, which reports it.
    ScopedEnv bad("NEXAR_ALGO", "allreduce:nonesuch");
    CHECK(algo(CollKind::BARRIER) == "(choose)");
    Choice c;
    CollArgs a{CollKind::BARRIER};
    CHECK(select_algorithm(a, 1, CollTransport::SHM, &c, {}, {}, &cache).code() == NEXAR_ERR_INVALID_ARGUMENT);
  }
  CHECK(algo(CollKind::BARRIER) == "one_rank");
}
