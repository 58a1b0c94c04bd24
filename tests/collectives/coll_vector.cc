// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The collectives with a count per rank on in-process worlds (thread_world.h): every
// algorithm forced in turn, worlds of 1..8 ranks (alltoallv bruck also 6, 7, 13 and 16), uniform / hot-receiver / empty-rank
// counts, blocks end to end or reversed with gaps (gaps must keep their sentinel bytes),
// in place and out of place, every dtype; and ranks whose counts disagree.
#include <catch.hpp>

#include <cstring>

#include "coll_checks.h"
#include "coll_test_util.h"
#include "collectives/algorithms.h"
#include "collectives/select.h"
#include "core/dtype.h"
#include "thread_world.h"
#include "vector_layout.h"

using namespace nexar;
using namespace nexar::coll;
using namespace nexar::coll::test;

namespace {

constexpr unsigned char kSentinel = 0xEE;

struct VCase {
  int p = 1;
  size_t n = 0;
  Pattern pat = Pattern::UNIFORM;
  bool gaps = false, in_place = false;
  nexar_dtype_t dtype = NEXAR_INT32;
  nexar_op_t op = NEXAR_SUM;
  int root = 0;
  std::string label() const {
    return strprintf("p=%d n=%zu %s%s%s %s root=%d", p, n, pattern_name(pat), gaps ? " gaps" : "",
                     in_place ? " in-place" : "", describe(dtype, op).c_str(), root);
  }
};

// The data rank `from` sends rank `to` (distinct per pair and element).
Bytes block(int from, int to, size_t count, nexar_dtype_t dt) {
  return make_data(from, count, dt, NEXAR_SUM, static_cast<size_t>(to) * 101);
}
void put(Bytes& buf, size_t at_byte, const Bytes& b) {
  if (!b.empty()) std::memcpy(buf.data() + at_byte, b.data(), b.size());
}
Bytes slice(const Bytes& buf, size_t at_byte, size_t bytes) {
  return Bytes(buf.begin() + static_cast<long>(at_byte), buf.begin() + static_cast<long>(at_byte + bytes));
}
void* ptr(Bytes& b) { return b.empty() ? nullptr : b.data(); }

void run_ok(ThreadWorld& w, const VCase& c, const std::vector<CollArgs>& args) {
  const std::vector<Status> st = w.run([&](CollContext& ctx) {
    const CollArgs& a = args[static_cast<size_t>(ctx.rank())];
    NX_RETURN_IF_ERROR(validate_collective_args(a, ctx.rank(), ctx.size()));
    return select_and_run(ctx, a);
  });
  for (size_t r = 0; r < st.size(); ++r) {
    INFO(c.label() << " rank " << r);
    REQUIRE(st[r].to_string() == "NEXAR_SUCCESS");
  }
  INFO(c.label());
  REQUIRE(w.leftovers().empty());
}

// Per rank: the layout of an alltoallv with counts[i][j] from i to j.
struct A2A {
  std::vector<size_t> sc, sd, rc, rd;
  Bytes send, recv, want;
};

std::vector<A2A> alltoallv_setup(const VCase& c, const std::vector<std::vector<size_t>>& m) {
  const size_t es = dtype_size(c.dtype), p = static_cast<size_t>(c.p);
  std::vector<A2A> v(p);
  for (size_t r = 0; r < p; ++r) {
    A2A& x = v[r];
    for (size_t j = 0; j < p; ++j) {
      x.sc.push_back(m[r][j]);
      x.rc.push_back(m[j][r]);
    }
    size_t sext = 0, rext = 0;
    x.sd = make_displs(x.sc, c.gaps, &sext);
    x.rd = make_displs(x.rc, !c.gaps, &rext);  // the other layout than the sends'
    const size_t ext = c.in_place ? std::max(sext, rext) : rext;
    x.recv.assign(ext * es, kSentinel);
    x.want = x.recv;
    Bytes& src = c.in_place ? x.recv : x.send;
    if (!c.in_place) x.send.assign(sext * es, 0x11);
    for (size_t j = 0; j < p; ++j) {
      put(src, x.sd[j] * es, block(static_cast<int>(r), static_cast<int>(j), x.sc[j], c.dtype));
      put(x.want, x.rd[j] * es, block(static_cast<int>(j), static_cast<int>(r), x.rc[j], c.dtype));
    }
  }
  return v;
}

void check_alltoallv(const VCase& c) {
  const size_t es = dtype_size(c.dtype);
  std::vector<A2A> v = alltoallv_setup(c, make_counts(c.p, c.n, c.pat));
  std::vector<CollArgs> args(v.size());
  for (size_t r = 0; r < v.size(); ++r) {
    CollArgs& a = args[r];
    a.kind = CollKind::ALLTOALLV;
    a.dtype = c.dtype;
    a.sendbuf = c.in_place ? ptr(v[r].recv) : ptr(v[r].send);
    a.recvbuf = ptr(v[r].recv);
    a.sendcounts = v[r].sc.data();
    a.sdispls = v[r].sd.data();
    a.recvcounts = v[r].rc.data();
    a.rdispls = v[r].rd.data();
  }
  ThreadWorld w(c.p);
  run_ok(w, c, args);
  for (size_t r = 0; r < v.size(); ++r) {
    INFO(c.label() << " rank " << r);
    if (!c.in_place) {
      require_same(v[r].recv, v[r].want);
      continue;
    }
    for (size_t j = 0; j < v.size(); ++j)  // in place: the send data may remain between the blocks
      require_same(slice(v[r].recv, v[r].rd[j] * es, v[r].rc[j] * es), slice(v[r].want, v[r].rd[j] * es, v[r].rc[j] * es));
  }
}

// allgatherv (every rank receives) and gatherv (the root): rank i contributes m[0][i].
void check_gather(CollKind kind, const VCase& c) {
  const size_t es = dtype_size(c.dtype), p = static_cast<size_t>(c.p);
  const auto m = make_counts(c.p, c.n, c.pat);
  std::vector<size_t> cnt(m[0]);
  size_t ext = 0;
  const std::vector<size_t> displs = make_displs(cnt, c.gaps, &ext);
  Bytes want(ext * es, kSentinel);
  for (size_t i = 0; i < p; ++i) put(want, displs[i] * es, block(static_cast<int>(i), 0, cnt[i], c.dtype));
  std::vector<Bytes> send(p), recv(p);
  std::vector<CollArgs> args(p);
  for (size_t r = 0; r < p; ++r) {
    const bool gets = kind == CollKind::ALLGATHERV || static_cast<int>(r) == c.root;
    send[r] = block(static_cast<int>(r), 0, cnt[r], c.dtype);
    CollArgs& a = args[r];
    a.kind = kind;
    a.dtype = c.dtype;
    a.root = c.root;
    a.count = cnt[r];
    a.sendbuf = ptr(send[r]);
    if (gets) {
      recv[r].assign(ext * es, kSentinel);
      a.recvbuf = ptr(recv[r]);
      a.recvcounts = cnt.data();
      a.rdispls = displs.data();
      if (c.in_place) {
        put(recv[r], displs[r] * es, send[r]);
        a.sendbuf = a.recvbuf;
      }
    }
  }
  ThreadWorld w(c.p);
  run_ok(w, c, args);
  for (size_t r = 0; r < p; ++r) {
    INFO(c.label() << " rank " << r);
    if (kind == CollKind::ALLGATHERV || static_cast<int>(r) == c.root) require_same(recv[r], want);
  }
}

void check_scatterv(const VCase& c) {
  const size_t es = dtype_size(c.dtype), p = static_cast<size_t>(c.p);
  const auto m = make_counts(c.p, c.n, c.pat);
  std::vector<size_t> cnt(m[0]);
  size_t ext = 0;
  const std::vector<size_t> displs = make_displs(cnt, c.gaps, &ext);
  Bytes send(ext * es, 0x11);
  for (size_t j = 0; j < p; ++j) put(send, displs[j] * es, block(c.root, static_cast<int>(j), cnt[j], c.dtype));
  const Bytes send_before = send;
  std::vector<Bytes> recv(p);
  std::vector<CollArgs> args(p);
  for (size_t r = 0; r < p; ++r) {
    const bool root = static_cast<int>(r) == c.root;
    CollArgs& a = args[r];
    a.kind = CollKind::SCATTERV;
    a.dtype = c.dtype;
    a.root = c.root;
    a.count = cnt[r];
    recv[r].assign((cnt[r] + 2) * es, kSentinel);  // two elements of sentinel after the block
    a.recvbuf = ptr(recv[r]);
    if (root) {
      a.sendbuf = ptr(send);
      a.sendcounts = cnt.data();
      a.sdispls = displs.data();
      if (c.in_place) a.recvbuf = ptr(send);
    }
  }
  ThreadWorld w(c.p);
  run_ok(w, c, args);
  require_same(send, send_before);
  for (size_t r = 0; r < p; ++r) {
    INFO(c.label() << " rank " << r);
    if (c.in_place && static_cast<int>(r) == c.root) continue;
    Bytes want((cnt[r] + 2) * es, kSentinel);
    put(want, 0, block(c.root, static_cast<int>(r), cnt[r], c.dtype));
    require_same(recv[r], want);
  }
}

void check_reduce_scatter_v(const VCase& c) {
  const size_t es = dtype_size(c.dtype), p = static_cast<size_t>(c.p);
  const std::vector<size_t> cnt(make_counts(c.p, c.n, c.pat)[0]);
  std::vector<size_t> off(p + 1, 0);
  for (size_t i = 0; i < p; ++i) off[i + 1] = off[i] + cnt[i];
  std::vector<Bytes> send(p), recv(p);
  std::vector<CollArgs> args(p);
  for (size_t r = 0; r < p; ++r) {
    send[r] = make_data(static_cast<int>(r), off[p], c.dtype, c.op);
    recv[r] = c.in_place ? send[r] : Bytes((cnt[r] + 2) * es, kSentinel);
    CollArgs& a = args[r];
    a.kind = CollKind::REDUCE_SCATTER_V;
    a.dtype = c.dtype;
    a.op = c.op;
    a.recvcounts = cnt.data();
    a.sendbuf = c.in_place ? ptr(recv[r]) : ptr(send[r]);
    a.recvbuf = ptr(recv[r]);
  }
  ThreadWorld w(c.p);
  run_ok(w, c, args);
  for (size_t r = 0; r < p; ++r) {
    INFO(c.label() << " rank " << r);
    Bytes want = reference_reduce(0, c.p, cnt[r], c.dtype, c.op, off[r]);
    if (c.in_place) {
      require_same(slice(recv[r], 0, cnt[r] * es), want);
      continue;
    }
    want.resize((cnt[r] + 2) * es, kSentinel);
    require_same(recv[r], want);
  }
}

void check_kind(CollKind kind, const VCase& c) {
  switch (kind) {
    case CollKind::ALLTOALLV: check_alltoallv(c); break;
    case CollKind::ALLGATHERV: case CollKind::GATHERV: check_gather(kind, c); break;
    case CollKind::SCATTERV: check_scatterv(c); break;
    case CollKind::REDUCE_SCATTER_V: check_reduce_scatter_v(c); break;
    default: FAIL("not a collective with a count per rank");
  }
}

const CollKind kVectorKinds[] = {CollKind::ALLGATHERV, CollKind::GATHERV, CollKind::SCATTERV, CollKind::ALLTOALLV,
                                 CollKind::REDUCE_SCATTER_V};

}  // namespace

TEST_CASE("collectives with a count per rank: every algorithm, layout and world size 1-8", "[vector]") {
  size_t turn = 0;  // walks the dtypes (and ops) across the cases
  for (CollKind kind : kVectorKinds)
    for (const AlgoDesc* algo : algos_of(kind)) {
      ScopedEnv env("NEXAR_ALGO", (std::string(coll_kind_name(kind)) + ":" + algo->name).c_str());
      for (int p : {1, 2, 3, 4, 5, 8})
        for (Pattern pat : {Pattern::UNIFORM, Pattern::HOT, Pattern::EMPTY_RANKS})
          for (size_t n : {size_t{0}, size_t{3}, size_t{40}})
            for (bool gaps : {false, true})
              for (bool in_place : {false, true}) {
                if (n == 0 && pat != Pattern::UNIFORM) continue;
                VCase c{p, n, pat, gaps, in_place};
                c.dtype = kAllDtypes[turn % 10];
                c.op = kind == CollKind::REDUCE_SCATTER_V ? kAllOps[turn % 5] : NEXAR_SUM;
                c.root = static_cast<int>(turn % static_cast<size_t>(p));
                ++turn;
                INFO(coll_kind_name(kind) << ":" << algo->name);
                check_kind(kind, c);
              }
    }
}

TEST_CASE("alltoallv and reduce_scatter_v: every dtype", "[vector]") {
  for (nexar_dtype_t d : kAllDtypes) {
    check_alltoallv(VCase{4, 9, Pattern::HOT, true, false, d});
    for (nexar_op_t op : kAllOps) check_reduce_scatter_v(VCase{3, 5, Pattern::EMPTY_RANKS, false, false, d, op});
  }
}

TEST_CASE("alltoallv bruck: worlds that are not powers of two, uneven and zero counts, gaps", "[vector]") {
  ScopedEnv env("NEXAR_ALGO", "alltoallv:bruck");
  size_t turn = 0;
  for (int p : {6, 7, 13})
    for (Pattern pat : {Pattern::UNIFORM, Pattern::HOT, Pattern::EMPTY_RANKS})
      for (bool gaps : {false, true}) {
        VCase c{p, 5, pat, gaps, turn % 3 == 2};
        c.dtype = kAllDtypes[turn++ % 10];
        check_alltoallv(c);
      }
}

TEST_CASE("alltoallv bruck chosen by the model: large blocks travel by the pairwise exchange, exact", "[vector]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  // Where forwarding stops paying, on the network model (60 us, 1.9 GB/s): 16 ranks
  // forward up to about 1.2 MB sent per rank, 64 ranks up to about 2.9 MB.
  const CostModel net = cost_model_from_params(CollTransport::NETWORK);
  REQUIRE(alltoallv_bruck_forwards(net, 16, 1 << 20));
  REQUIRE(!alltoallv_bruck_forwards(net, 16, 2 << 20));
  REQUIRE(alltoallv_bruck_forwards(net, 64, 2 << 20));
  REQUIRE(!alltoallv_bruck_forwards(net, 64, 4 << 20));
  REQUIRE(alltoallv_bruck_forwards(net, 2, 1 << 30));  // one round either way
  // 16 ranks choose bruck at any size (the protocol is chosen from p alone); with 1 us
  // latency its count rounds agree that 16 KiB per rank is past forwarding's break-even.
  ScopedEnv fast("NEXAR_COST_LATENCY_US", "1");
  std::vector<size_t> counts(16, size_t{1} << 10);
  CollArgs a;
  a.kind = CollKind::ALLTOALLV;
  a.dtype = NEXAR_UINT8;
  a.sendcounts = counts.data();
  Choice ch;
  REQUIRE(select_algorithm(a, 16, CollTransport::NETWORK, &ch, SlotCaps{}).ok());
  REQUIRE(std::string(ch.algo->name) == "bruck");
  check_alltoallv(VCase{16, 1 << 10, Pattern::HOT, true, false, NEXAR_FLOAT32});
  check_alltoallv(VCase{16, 3, Pattern::EMPTY_RANKS, false, true, NEXAR_INT8});
}

namespace {

// Runs args on a world; returns each rank's status. Receive buffers must stay sentinel.
std::vector<Status> run_all(int p, const std::vector<CollArgs>& args) {
  ThreadWorld w(p);
  return w.run([&](CollContext& ctx) { return select_and_run(ctx, args[static_cast<size_t>(ctx.rank())]); });
}

void require_untouched(const Bytes& b) {
  for (unsigned char x : b) REQUIRE(x == kSentinel);
}

// A rank of the disagreeing pair fails with the mismatch itself, or, when its peer failed
// first while it still waited on a third rank, with the world's abort quoting it (over the
// engine: the peer's ABORT, NEXAR_ERR_MISMATCH "rank R reported: ...").
void require_mismatch(const Status& st, const std::string& text) {
  INFO(st.to_string());
  REQUIRE((st.code() == NEXAR_ERR_MISMATCH || st.code() == NEXAR_ERR_ABORTED));
  REQUIRE((st.message().find("NEXAR_ERR_MISMATCH") != std::string::npos || st.code() == NEXAR_ERR_MISMATCH));
  REQUIRE(st.message().find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("alltoallv: counts that disagree are a mismatch on both ranks, nothing written", "[vector]") {
  const char* algo = GENERATE("", "alltoallv:bruck");  // the pair check, and bruck's count rounds
  ScopedEnv env("NEXAR_ALGO", *algo ? algo : nullptr);
  const VCase c{4, 4, Pattern::UNIFORM, false, false, NEXAR_INT32};
  std::vector<A2A> v = alltoallv_setup(c, make_counts(4, 4, Pattern::UNIFORM));
  v[1].sc[2] = 5;  // rank 1 sends 5 to rank 2, which expects 4
  v[1].send.resize(v[1].send.size() + 64, 0x11);
  std::vector<CollArgs> args(4);
  for (size_t r = 0; r < 4; ++r) {
    args[r].kind = CollKind::ALLTOALLV;
    args[r].dtype = c.dtype;
    args[r].sendbuf = ptr(v[r].send);
    args[r].recvbuf = ptr(v[r].recv);
    args[r].sendcounts = v[r].sc.data();
    args[r].sdispls = v[r].sd.data();
    args[r].recvcounts = v[r].rc.data();
    args[r].rdispls = v[r].rd.data();
  }
  const std::vector<Status> st = run_all(4, args);
  const std::string text = "alltoallv: rank 1 sends 5 elements to rank 2 where rank 2 expects 4 from rank 1";
  for (int r : {1, 2}) {
    INFO("rank " << r << ": " << st[static_cast<size_t>(r)].to_string());
    // Either rank may be stopped by the other's abort, which quotes the mismatch, before it
    // compares the pair's counts itself: bruck's rank 2 holds them after round 0, rank 1
    // after round 1; the pair check's exchange can lose the race under load (rank 1
    // "NEXAR_ERR_ABORTED: alltoallv (scattered): rank 2 failed: NEXAR_ERR_MISMATCH: ...",
    // at load 7-9).
    require_mismatch(st[static_cast<size_t>(r)], text);
    require_untouched(v[static_cast<size_t>(r)].recv);
  }
  for (const Status& s : st) REQUIRE(!s.ok());  // the others are stopped, not hung
}

TEST_CASE("allgatherv, gatherv, scatterv, reduce_scatter_v: disagreeing counts name both ranks", "[vector]") {
  const size_t cnt[4] = {2, 3, 4, 5}, bad[4] = {2, 3, 4, 6}, displs[4] = {0, 2, 5, 9};
  Bytes src(64 * 8, 0x11);
  struct Expect {
    CollKind kind;
    std::string text;
  };
  for (const Expect& e : {Expect{CollKind::ALLGATHERV, "allgatherv: rank 3 sends 5 elements to rank 0 where rank 0 expects 6 from rank 3"},
                          Expect{CollKind::GATHERV, "gatherv: rank 3 sends 5 elements to rank 0 where rank 0 expects 6 from rank 3"},
                          Expect{CollKind::SCATTERV, "scatterv: rank 0 sends 6 elements to rank 3 where rank 3 expects 5 from rank 0"},
                          Expect{CollKind::REDUCE_SCATTER_V, "reduce_scatter_v: rank 0 sends 6 elements to rank 3 where rank 3 expects 5 from rank 0"}}) {
    INFO(coll_kind_name(e.kind));
    std::vector<Bytes> recv(4, Bytes(64 * 8, kSentinel));
    std::vector<CollArgs> args(4);
    for (size_t r = 0; r < 4; ++r) {
      CollArgs& a = args[r];
      a.kind = e.kind;
      a.dtype = NEXAR_INT64;
      a.sendbuf = src.data();
      a.recvbuf = recv[r].data();
      a.count = cnt[r];
      // Rank 0 (the root) believes rank 3 has 6 elements.
      a.recvcounts = r == 0 ? bad : cnt;
      a.rdispls = displs;
      a.sendcounts = r == 0 ? bad : cnt;
      a.sdispls = displs;
    }
    const std::vector<Status> st = run_all(4, args);
    for (size_t r : {size_t{0}, size_t{3}}) {
      INFO("rank " << r);
      require_mismatch(st[r], e.text);
      require_untouched(recv[r]);
    }
  }
}

TEST_CASE("collectives with a count per rank: local argument errors", "[vector]") {
  const size_t cnt[2] = {3, 4}, other[2] = {3, 5}, displs[2] = {0, 3};
  int buf[16] = {};
  CollArgs a;
  a.kind = CollKind::ALLTOALLV;
  a.dtype = NEXAR_INT32;
  a.sendbuf = buf;
  a.recvbuf = buf + 8;
  a.sendcounts = cnt;
  a.sdispls = displs;
  a.recvcounts = other;
  a.rdispls = displs;
  Status st = validate_collective_args(a, 1, 2);  // rank 1 sends itself 4, its receive holds 5
  REQUIRE(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  REQUIRE(st.message().find("rank 1 sends itself 4 elements where its receive holds 5") != std::string::npos);
  REQUIRE(validate_collective_args(a, 0, 2).ok());
  a.rdispls = nullptr;
  REQUIRE(validate_collective_args(a, 0, 2).message().find("rdispls is NULL") != std::string::npos);
  a.rdispls = displs;
  a.recvbuf = nullptr;
  REQUIRE(validate_collective_args(a, 0, 2).message().find("recvbuf is NULL with recvcounts[0] = 3") != std::string::npos);
  a.recvbuf = buf;
  const size_t huge[2] = {SIZE_MAX / 2, 1};
  a.recvcounts = huge;
  REQUIRE(validate_collective_args(a, 1, 2).message().find("largest possible buffer") != std::string::npos);
  const size_t beyond[2] = {SIZE_MAX / 16, 1};  // fits size_t as bytes, but no address space (issue 19)
  a.recvcounts = beyond;
  REQUIRE(validate_collective_args(a, 1, 2).message().find("recvcounts[0] = 1152921504606846975") != std::string::npos);
  CollArgs g;  // a gatherv member passes no receive arrays
  g.kind = CollKind::GATHERV;
  g.dtype = NEXAR_INT32;
  g.sendbuf = buf;
  g.count = 3;
  g.root = 1;
  REQUIRE(validate_collective_args(g, 0, 2).ok());
  REQUIRE(validate_collective_args(g, 1, 2).message().find("recvcounts is NULL") != std::string::npos);
  g.root = 2;
  REQUIRE(validate_collective_args(g, 0, 2).message().find("root 2 is outside [0, 2)") != std::string::npos);
}

namespace {

// The algorithm the model chooses for an alltoallv of p ranks sending `each` bytes to each.
const AlgoDesc* alltoallv_choice(int p, size_t each, CollTransport t, const SlotCaps& caps) {
  std::vector<size_t> counts(static_cast<size_t>(p), each);
  CollArgs a;
  a.kind = CollKind::ALLTOALLV;
  a.dtype = NEXAR_UINT8;
  a.sendcounts = counts.data();
  Choice c;
  REQUIRE(select_algorithm(a, p, t, &c, caps).ok());
  return c.algo;
}

}  // namespace

TEST_CASE("alltoallv: the cost model picks scattered for small blocks, pairwise for large, bruck in large worlds", "[vector]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  const auto pick = [](int p, size_t each) {
    return std::string(alltoallv_choice(p, each, CollTransport::NETWORK, SlotCaps{})->name);
  };
  REQUIRE(pick(8, 1) == "scattered");
  REQUIRE(pick(8, 1 << 20) == "pairwise");
  // 2 L rounds against scattered's and the pair check's (1 + (p-2)/4) a each: at 16 ranks
  // 8 a against 9 a, at 64 12 a against 33 a. Bruck at any size there: its data phase
  // decides on the sizes its count rounds agree on.
  REQUIRE(pick(13, 1) == "scattered");
  for (int p : {16, 64})
    for (size_t each : {size_t{1}, size_t{1} << 20}) REQUIRE(pick(p, each) == "bruck");
}

TEST_CASE("alltoallv: ranks sending different bytes choose algorithms that run against each other", "[vector]") {
  ScopedEnv env("NEXAR_ALGO", nullptr);
  // Each rank charges what it sends; a hot receiver's senders and the rest differ. Every
  // choice for one world must be one algorithm, or algorithms of one wire protocol.
  const SlotCaps none{}, slots{true, 4096, true, 2}, slots_many_cores{true, 4096, true, 64};
  for (const auto& [t, caps] : {std::pair{CollTransport::NETWORK, none}, std::pair{CollTransport::SHM, none},
                                std::pair{CollTransport::SHM, slots}, std::pair{CollTransport::SHM, slots_many_cores}})
    for (int p : {2, 3, 8, 64}) {
      const AlgoDesc* first = nullptr;
      for (size_t each : {size_t{0}, size_t{1}, size_t{512}, size_t{8} << 10, size_t{128} << 10, size_t{4} << 20}) {
        const AlgoDesc* algo = alltoallv_choice(p, each, t, caps);
        if (!first) first = algo;
        INFO(coll_transport_name(t) << " slots " << caps.has_slots << " cores " << caps.cores << ", " << p << " ranks, "
                                    << each << " bytes to each: " << algo->name << ", at 0 bytes " << first->name);
        REQUIRE((algo == first || (algo->wire && first->wire && std::string(algo->wire) == first->wire)));
      }
    }
  // Where slots and direct reads exist, every rank reads directly, a hot one (4 MiB, past
  // NEXAR_SHM_ALLTOALLV_PUSH: two slot rounds) as well as the others (one round).
  std::vector<size_t> hot(2, size_t{4} << 20), cold(2, 1024);
  CollArgs a;
  a.kind = CollKind::ALLTOALLV;
  a.dtype = NEXAR_UINT8;
  Choice c;
  for (const std::vector<size_t>* counts : {&hot, &cold}) {
    a.sendcounts = counts->data();
    REQUIRE(select_algorithm(a, 2, CollTransport::SHM, &c, slots).ok());
    REQUIRE(std::string(c.algo->name) == "shm_direct");
  }
}
