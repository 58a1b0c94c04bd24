// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the communicator tests (`comm_probe <scenario>` under nexrun), written
// against the C++ wrapper as numr-style code would be. Exits non-zero with a message on any
// difference from what is computed locally.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <nexar/nexar.hpp>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

int g_rank = -1;

#define EXPECT(cond)                                                                             \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "rank %d: %s:%d: expected %s\n", g_rank, __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

// Sum of f(member) over the members of comm, computed by allreduce; checks it against want.
void check_sum(nexar::Communicator& c, int64_t mine, int64_t want) {
  int64_t v = mine;
  c.all_reduce(&v, 1, NEXAR_INT64, NEXAR_SUM);
  EXPECT(v == want);
}

// World ranks of comm's members in comm order, by allgather.
std::vector<int32_t> members(nexar::Communicator& c, int world_rank) {
  std::vector<int32_t> all(c.world_size());
  int32_t me = world_rank;
  c.all_gather(&me, all.data(), 1, NEXAR_INT32);
  return all;
}

// "7,5,3,1".
std::string joined(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// Parity split with reversed keys: members ordered by descending world rank.
void split_parity(nexar::Communicator& world) {
  const int n = world.size(), r = world.rank();
  auto child = world.split(r % 2, -r);
  EXPECT(child.has_value());
  std::vector<int32_t> want;
  for (int q = n - 1; q >= 0; --q)
    if (q % 2 == r % 2) want.push_back(q);
  EXPECT(members(*child, r) == want);
  EXPECT(child->size() == static_cast<int>(want.size()));
  int64_t sum = 0;
  for (int q : want) sum += q;
  check_sum(*child, r, sum);
  // The same tag on parent and child at the same moment: never mixed up.
  if (child->size() > 1) {
    const int cn = child->size(), cr = child->rank();
    int64_t on_child = 1000 + r, on_world = 2000 + r, got_child = -1, got_world = -1;
    auto rc = child->irecv(std::span<int64_t>(&got_child, 1), (cr + cn - 1) % cn, 5);
    auto rw = world.irecv(std::span<int64_t>(&got_world, 1), (r + n - 1) % n, 5);
    world.send(std::span<const int64_t>(&on_world, 1), (r + 1) % n, 5);
    child->send(std::span<const int64_t>(&on_child, 1), (cr + 1) % cn, 5);
    rc.wait();
    rw.wait();
    EXPECT(got_world == 2000 + (r + n - 1) % n);
    EXPECT(got_child == 1000 + want[static_cast<size_t>((cr + cn - 1) % cn)]);
  }
  // Every collective works on the child.
  std::vector<float> v(37, static_cast<float>(r));
  child->broadcast(v.data(), v.size(), NEXAR_FLOAT32, child->size() - 1);
  EXPECT(v[36] == static_cast<float>(want.back()));
  std::vector<int32_t> rs(child->world_size() * 3), out(3);
  for (size_t i = 0; i < rs.size(); ++i) rs[i] = static_cast<int32_t>(i) + r;
  child->reduce_scatter(rs.data(), out.data(), 3, NEXAR_INT32, NEXAR_SUM);
  for (int i = 0; i < 3; ++i) EXPECT(out[i] == static_cast<int32_t>((child->rank() * 3 + i) * child->size() + sum));
  child->barrier();
  world.barrier();
  std::printf("rank %d: split_parity child rank %d members %s\n", r, child->rank(), joined(members(*child, r)).c_str());
  std::printf("rank %d: split_parity ok\n", r);
}

void undefined(nexar::Communicator& world) {
  const int r = world.rank(), n = world.size();
  auto child = world.split(r % 3 == 0 ? NEXAR_UNDEFINED : 1, r);
  EXPECT(child.has_value() == (r % 3 != 0));
  if (child) {
    int64_t want = 0, cnt = 0;
    for (int q = 0; q < n; ++q)
      if (q % 3 != 0) want += q, ++cnt;
    EXPECT(child->size() == cnt);
    check_sum(*child, r, want);
    std::printf("rank %d: undefined child members %s\n", r, joined(members(*child, r)).c_str());
  } else {
    std::printf("rank %d: undefined no child\n", r);
  }
  world.barrier();
  std::printf("rank %d: undefined ok\n", r);
}

void nested(nexar::Communicator& world) {
  const int r = world.rank();
  auto half = world.split(r % 2, r);
  auto quarter = half->split(half->rank() < half->size() / 2 ? 0 : 1, half->rank());
  auto m = members(*quarter, r);
  for (int32_t q : m) EXPECT(q % 2 == r % 2);
  int64_t want = 0;
  for (int32_t q : m) want += q;
  check_sum(*quarter, r, want);
  quarter->destroy();  // a grandchild goes first
  check_sum(*half, 1, half->size());
  world.barrier();
  std::printf("rank %d: nested ok\n", r);
}

void dup_and_destroy(nexar::Communicator& world) {
  const int r = world.rank(), n = world.size();
  auto a = world.dup();
  auto b = world.dup();
  EXPECT(a.rank() == r && a.size() == n);
  EXPECT(members(a, r) == members(world, r));
  // The same tag on world and dup, sent in opposite orders: each receive gets its own.
  int32_t x = 10 + r, y = 20 + r, gx = 0, gy = 0;
  const int to = (r + 1) % n, from = (r + n - 1) % n;
  auto rx = world.irecv(std::span<int32_t>(&gx, 1), from, 1);
  auto ry = a.irecv(std::span<int32_t>(&gy, 1), from, 1);
  a.send(std::span<const int32_t>(&y, 1), to, 1);
  world.send(std::span<const int32_t>(&x, 1), to, 1);
  rx.wait();
  ry.wait();
  EXPECT(gx == 10 + from && gy == 20 + from);
  a.destroy();  // a child goes while its parent and its sibling keep working
  check_sum(world, r, static_cast<int64_t>(n) * (n - 1) / 2);
  check_sum(b, 1, n);
  std::printf("rank %d: dup ok\n", r);
}

// Two sibling communicators used at once from two threads.
void threads(nexar::Communicator& world) {
  const int r = world.rank(), n = world.size();
  auto a = world.dup();
  auto b = std::move(*world.split(0, -r));
  std::atomic<int> failures{0};
  auto work = [&](nexar::Communicator& c, int salt) {
    for (int i = 0; i < 50; ++i) {
      std::vector<int64_t> v(1 + (i * 37) % 3000, r * salt + i);
      c.all_reduce(v.data(), v.size(), NEXAR_INT64, NEXAR_SUM);
      int64_t want = static_cast<int64_t>(n) * (n - 1) / 2 * salt + static_cast<int64_t>(n) * i;
      for (int64_t e : v) failures += e != want;
      int64_t t = salt, got = 0;
      auto rq = c.irecv(std::span<int64_t>(&got, 1), (c.rank() + 1) % n, 3);
      c.send(std::span<const int64_t>(&t, 1), (c.rank() + n - 1) % n, 3);
      rq.wait();
      failures += got != salt;
    }
  };
  std::thread ta([&] { work(a, 3); });
  std::thread tb([&] { work(b, 7); });
  ta.join();
  tb.join();
  EXPECT(failures == 0);
  world.barrier();
  std::printf("rank %d: threads ok\n", r);
}

// numr's two tests of its nexar communicator, ported: metadata, and f32 allreduce on 2 ranks.
void numr_tests(nexar::Communicator& world) {
  EXPECT(world.world_size() == 2);
  EXPECT(world.rank() == g_rank);
  float val = static_cast<float>(world.rank() + 1);
  std::vector<float> data(4, val);
  world.all_reduce(data.data(), 4, NEXAR_FLOAT32, NEXAR_SUM);
  world.sync();
  EXPECT(data == std::vector<float>(4, 3.0f));
  // send/recv start transfers; sync completes them.
  std::vector<float> out(8, val), in(8, 0);
  const int peer = 1 - world.rank();
  world.recv(in.data(), in.size(), NEXAR_FLOAT32, peer, 9);
  world.send(out.data(), out.size(), NEXAR_FLOAT32, peer, 9);
  world.sync();
  EXPECT(in == std::vector<float>(8, static_cast<float>(peer + 1)));
  std::printf("rank %d: numr ok\n", world.rank());
}

void groups(nexar::Communicator& world) {
  const int r = world.rank();
  auto g = nexar::make_parallel_groups(world, 2, 2, 2);
  EXPECT(g.tp_rank == r % 2 && g.pp_rank == (r / 2) % 2 && g.dp_rank == r / 4);
  EXPECT(g.tp.size() == 2 && g.pp.size() == 2 && g.dp.size() == 2);
  auto tp = members(g.tp, r), pp = members(g.pp, r), dp = members(g.dp, r);
  for (int32_t q : tp) EXPECT(q / 2 == r / 2);                        // same dp and pp
  for (int32_t q : pp) EXPECT(q % 2 == r % 2 && q / 4 == r / 4);      // same dp and tp
  for (int32_t q : dp) EXPECT(q % 4 == r % 4);                        // same pp and tp
  bool threw = false;
  try {
    (void)nexar::make_parallel_groups(world, 3, 1, 2);
  } catch (const nexar::Error& e) {
    threw = e.code() == NEXAR_ERR_INVALID_ARGUMENT;
  }
  EXPECT(threw);
  std::printf("rank %d: groups tp %s pp %s dp %s\n", r, joined(tp).c_str(), joined(pp).c_str(), joined(dp).c_str());
  std::printf("rank %d: groups ok\n", r);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) return 2;
  auto world = nexar::Communicator::init();
  g_rank = world.rank();
  const std::string s = argv[1];
  if (s == "split_parity") split_parity(world);
  else if (s == "undefined") undefined(world);
  else if (s == "nested") nested(world);
  else if (s == "dup") dup_and_destroy(world);
  else if (s == "threads") threads(world);
  else if (s == "numr") numr_tests(world);
  else if (s == "groups") groups(world);
  else return 2;
  world.destroy();
  return 0;
} catch (const nexar::Error& e) {
  std::fprintf(stderr, "rank %d: %s\n", g_rank, e.what());
  return 1;
}
