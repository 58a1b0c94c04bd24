// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "coll_checks.h"

#include <catch.hpp>

#include <atomic>
#include <cstring>

#include "coll_test_util.h"
#include "core/dtype.h"
#include "core/reduce.h"
#include "thread_world.h"

namespace nexar::coll::test {
namespace {

size_t esz(const Case& c) { return dtype_size(c.dtype); }

void run_world(ThreadWorld& w, const Case& c, const std::function<Status(CollContext&)>& fn) {
  const std::vector<Status> st = w.run(fn);
  for (size_t r = 0; r < st.size(); ++r) {
    INFO(c.label() << " rank " << r);
    REQUIRE(st[r].to_string() == "NEXAR_SUCCESS");
  }
  INFO(c.label());
  REQUIRE(w.leftovers().empty());
}

Bytes concat(const std::vector<Bytes>& parts) {
  Bytes out;
  for (const Bytes& b : parts) out.insert(out.end(), b.begin(), b.end());
  return out;
}

}  // namespace

void require_same(const Bytes& got, const Bytes& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  INFO("got " << got.size() << " bytes, want " << want.size() << ", first difference at byte " << i);
  REQUIRE((got.size() == want.size() && i == got.size()));
}

namespace {

void* ptr(Bytes& b) { return b.empty() ? nullptr : b.data(); }

// Rank r's contribution to block j (scatter / alltoall / reduce_scatter inputs).
Bytes block_data(int r, int j, const Case& c) { return make_data(r, c.count, c.dtype, c.op, static_cast<size_t>(j) * c.count); }

}  // namespace

std::string Case::label() const {
  return strprintf("p=%d count=%zu %s root=%d %s", p, count, describe(dtype, op).c_str(), root,
                   in_place ? "in-place" : "out-of-place");
}

std::vector<const AlgoDesc*> algos_of(CollKind kind) {
  std::vector<const AlgoDesc*> out;
  // Not the shared-slot algorithms: the thread world has no shared-memory slots (tests/shm
  // and tests/collectives_e2e run them over real shared memory).
  for (const AlgoDesc& d : algo_table())
    if (d.kind == kind && d.slots == SlotUse::NONE) out.push_back(&d);
  return out;
}

bool applies(const AlgoDesc& d, int p) { return !d.why_not || !d.why_not(p, CollArgs{}); }

std::vector<int> world_sizes(bool long_suite) {
  return long_suite ? std::vector<int>{11, 16} : std::vector<int>{1, 2, 3, 4, 5, 7, 8};
}

std::vector<size_t> test_counts(int p) {
  std::vector<size_t> out{0, 1};
  if (p > 2) out.push_back(static_cast<size_t>(p - 1));
  out.push_back(13);
  out.push_back(31);
  return out;
}

std::vector<int> test_roots(int p) {
  std::vector<int> out{0};
  if (p > 1) out.push_back(p - 1);
  if (p > 2) out.push_back(p / 2);
  return out;
}

void check_collective(CollKind kind, const Case& c, const ThreadWorld::Options& opts) {
  const int p = c.p;
  const size_t es = esz(c), n = c.count, nb = n * es;
  ThreadWorld w(p, opts);
  std::vector<Bytes> send(p), recv(p);
  auto fresh = [&](size_t bytes) { return Bytes(bytes, 0xCD); };
  CollArgs base;
  base.kind = kind;
  base.count = n;
  base.dtype = c.dtype;
  base.op = c.op;
  base.root = c.root;
  std::vector<CollArgs> args(p, base);
  switch (kind) {
    case CollKind::ALLREDUCE: case CollKind::SCAN: case CollKind::EXSCAN: case CollKind::REDUCE:
      for (int r = 0; r < p; ++r) {
        send[r] = make_data(r, n, c.dtype, c.op);
        const bool gets = kind != CollKind::REDUCE || r == c.root;
        recv[r] = c.in_place && gets ? send[r] : gets ? fresh(nb) : Bytes();
        args[r].sendbuf = c.in_place && gets ? ptr(recv[r]) : ptr(send[r]);
        args[r].recvbuf = ptr(recv[r]);
      }
      break;
    case CollKind::BROADCAST:
      for (int r = 0; r < p; ++r) {
        recv[r] = r == c.root ? make_data(r, n, c.dtype, c.op) : fresh(nb);
        args[r].recvbuf = ptr(recv[r]);
      }
      break;
    case CollKind::ALLGATHER: case CollKind::GATHER:
      for (int r = 0; r < p; ++r) {
        send[r] = make_data(r, n, c.dtype, c.op);
        const bool gets = kind == CollKind::ALLGATHER || r == c.root;
        recv[r] = gets ? fresh(nb * p) : Bytes();
        args[r].recvbuf = ptr(recv[r]);
        args[r].sendbuf = ptr(send[r]);
        if (c.in_place && gets) {  // contribution already in place at r * count
          if (nb) std::memcpy(recv[r].data() + r * nb, send[r].data(), nb);
          args[r].sendbuf = ptr(recv[r]);
        }
      }
      break;
    case CollKind::SCATTER:
      for (int r = 0; r < p; ++r) {
        if (r == c.root) {
          std::vector<Bytes> parts;
          for (int j = 0; j < p; ++j) parts.push_back(block_data(r, j, c));
          send[r] = concat(parts);
        }
        recv[r] = c.in_place && r == c.root ? Bytes() : fresh(nb);
        args[r].sendbuf = ptr(send[r]);
        args[r].recvbuf = c.in_place && r == c.root ? ptr(send[r]) : ptr(recv[r]);
      }
      break;
    case CollKind::REDUCE_SCATTER: case CollKind::ALLTOALL:
      for (int r = 0; r < p; ++r) {
        std::vector<Bytes> parts;
        for (int j = 0; j < p; ++j) parts.push_back(block_data(r, j, c));
        send[r] = concat(parts);
        recv[r] = c.in_place ? send[r] : fresh(kind == CollKind::ALLTOALL ? nb * p : nb);
        args[r].sendbuf = c.in_place ? ptr(recv[r]) : ptr(send[r]);
        args[r].recvbuf = ptr(recv[r]);
      }
      break;
    default:
      FAIL("check_collective does not handle " << coll_kind_name(kind));
  }
  run_world(w, c, [&](CollContext& ctx) { return select_and_run(ctx, args[ctx.rank()]); });

  for (int r = 0; r < p; ++r) {
    INFO(coll_kind_name(kind) << " " << c.label() << " rank " << r);
    Bytes want;
    const Bytes* got = &recv[r];
    switch (kind) {
      case CollKind::ALLREDUCE: want = reference_reduce(0, p, n, c.dtype, c.op); break;
      case CollKind::REDUCE:
        if (r != c.root) continue;
        want = reference_reduce(0, p, n, c.dtype, c.op);
        break;
      case CollKind::SCAN: want = reference_reduce(0, r + 1, n, c.dtype, c.op); break;
      case CollKind::EXSCAN:
        if (r == 0) {
          want.resize(nb);
          fill_identity(want.data(), n, c.dtype, c.op);
        } else {
          want = reference_reduce(0, r, n, c.dtype, c.op);
        }
        break;
      case CollKind::BROADCAST: want = make_data(c.root, n, c.dtype, c.op); break;
      case CollKind::ALLGATHER: case CollKind::GATHER: {
        if (kind == CollKind::GATHER && r != c.root) continue;
        std::vector<Bytes> parts;
        for (int j = 0; j < p; ++j) parts.push_back(make_data(j, n, c.dtype, c.op));
        want = concat(parts);
        break;
      }
      case CollKind::SCATTER:
        want = block_data(c.root, r, c);
        if (c.in_place && r == c.root) {  // left where it was in sendbuf
          Bytes in_place(send[r].begin() + r * nb, send[r].begin() + (r + 1) * nb);
          require_same(in_place, want);
          continue;
        }
        break;
      case CollKind::REDUCE_SCATTER: {
        // Reference: fold over ranks of block r, as in reference_reduce but per block.
        want = block_data(0, r, c);
        Bytes acc = want;
        for (int q = 1; q < p; ++q) {
          const Bytes x = block_data(q, r, c);
          if (n) reduce(acc.data(), acc.data(), x.data(), n, c.dtype, c.op);
        }
        reduce_finalize(acc.data(), n, c.dtype, c.op, static_cast<size_t>(p));
        want = acc;
        if (c.in_place) {
          Bytes head(recv[r].begin(), recv[r].begin() + nb);
          require_same(head, want);
          continue;
        }
        break;
      }
      case CollKind::ALLTOALL: {
        std::vector<Bytes> parts;
        for (int j = 0; j < p; ++j) parts.push_back(block_data(j, r, c));
        want = concat(parts);
        break;
      }
      default: break;
    }
    require_same(*got, want);
  }
}

void sweep(CollKind kind, bool long_suite, nexar_dtype_t dtype, nexar_op_t op, bool has_in_place) {
  for (const AlgoDesc* algo : algos_of(kind)) {
    const std::string force = std::string(coll_kind_name(kind)) + ":" + algo->name;
    ScopedEnv env("NEXAR_ALGO", force.c_str());
    for (int p : world_sizes(long_suite)) {
      if (!applies(*algo, p)) continue;  // checked in coll_selection
      for (size_t count : test_counts(p))
        for (int root : kind_traits(kind).root ? test_roots(p) : std::vector<int>{0})
          for (bool in_place : has_in_place ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
            Case c{p, count, dtype, op, root, in_place};
            INFO("forced " << force);
            check_collective(kind, c);
          }
    }
  }
}

}  // namespace nexar::coll::test
