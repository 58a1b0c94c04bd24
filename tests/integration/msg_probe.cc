// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the messaging tests (probe, statuses, gather/scatter lists, groups of
// point-to-point operations and collectives):
// `msg_probe all|fail` under nexrun. `all` runs every scenario on the world, then on a
// split communicator whose ranks run in reverse world order. Each check exits non-zero
// with a message naming what differed.
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "nexar/nexar.hpp"
#include "probe_util.h"

using probe::g_rank;
using probe::g_world;
using probe::pattern;

namespace {

struct Comm {
  nexar_comm_t h;
  int rank, size;
  const char* name;
};

std::vector<unsigned char> message(int sender, int msg, size_t n) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = pattern(sender, msg, i);
  return v;
}

bool same(const unsigned char* got, int sender, int msg, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != pattern(sender, msg, i)) {
      std::fprintf(stderr, "rank %d: byte %zu of message %d from rank %d differs\n", g_rank, i, msg, sender);
      return false;
    }
  return true;
}

// Each rank sends the next a message whose size the receiver learns by probing.
void unknown_size(const Comm& c) {
  const int to = (c.rank + 1) % c.size, from = (c.rank + c.size - 1) % c.size;
  auto out = message(c.rank, 1, 1000 * static_cast<size_t>(c.rank + 1) + 77 * static_cast<size_t>(c.rank) + (c.rank % 2) * 300000);
  nexar_request_t r;
  PROBE_OK(nexar_isend(out.data(), out.size(), NEXAR_UINT8, to, 100 + c.rank, c.h, &r));
  nexar_status_t st;
  PROBE_OK(nexar_probe(from, NEXAR_ANY_TAG, c.h, &st));
  const size_t want = 1000 * static_cast<size_t>(from + 1) + 77 * static_cast<size_t>(from) + (from % 2) * 300000;
  PROBE_CHECK(st.source == from && st.tag == 100 + from && st.bytes == want);
  std::vector<unsigned char> in(st.bytes);
  nexar_status_t got;
  PROBE_OK(nexar_recv_status(in.data(), in.size(), NEXAR_UINT8, st.source, st.tag, c.h, &got));
  PROBE_CHECK(got.source == from && got.tag == 100 + from && got.bytes == want);
  PROBE_CHECK(same(in.data(), from, 1, want));
  PROBE_OK(nexar_wait(r));
}

// Every other rank sends rank 0 two messages (one large); rank 0 takes them in the order
// ANY_SOURCE probes find them.
void any_source(const Comm& c) {
  auto size_of = [](int src, int k) { return k == 0 ? 64 + static_cast<size_t>(src) : 200000 + 1000 * static_cast<size_t>(src); };
  if (c.rank != 0) {
    for (int k = 0; k < 2; ++k) {
      auto out = message(c.rank, 10 + k, size_of(c.rank, k));
      PROBE_OK(nexar_send(out.data(), out.size(), NEXAR_UINT8, 0, 10 + k, c.h));
    }
  } else {
    std::vector<int> seen(static_cast<size_t>(c.size), 0);
    for (int i = 0; i < 2 * (c.size - 1); ++i) {
      nexar_status_t st;
      PROBE_OK(nexar_probe(NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, c.h, &st));
      PROBE_CHECK(st.source > 0 && st.source < c.size && (st.tag == 10 || st.tag == 11));
      PROBE_CHECK(st.tag == 10 + seen[static_cast<size_t>(st.source)]);  // in the order sent
      PROBE_CHECK(st.bytes == size_of(st.source, st.tag - 10));
      std::vector<unsigned char> in(st.bytes);
      PROBE_OK(nexar_recv(in.data(), in.size(), NEXAR_UINT8, st.source, st.tag, c.h));
      PROBE_CHECK(same(in.data(), st.source, st.tag, st.bytes));
      ++seen[static_cast<size_t>(st.source)];
    }
  }
  PROBE_OK(nexar_barrier(c.h));
}

// iprobe never blocks: nothing is there before rank 1 is told to send; then a polling
// loop finds the message.
void iprobe_poll(const Comm& c) {
  if (c.rank == 0) {
    int flag = 1;
    nexar_status_t st;
    PROBE_OK(nexar_iprobe(1, 30, c.h, &flag, &st));
    PROBE_CHECK(flag == 0 && st.source == -1 && st.bytes == 0);
    int go = 1;
    PROBE_OK(nexar_send(&go, 1, NEXAR_INT32, 1, 31, c.h));
    const auto t0 = std::chrono::steady_clock::now();
    long polls = 0;
    while (!flag) {
      PROBE_OK(nexar_iprobe(NEXAR_ANY_SOURCE, 30, c.h, &flag, &st));
      ++polls;
      PROBE_CHECK(probe::seconds_since(t0) < 30);
    }
    PROBE_CHECK(st.source == 1 && st.tag == 30 && st.bytes == 8);
    int64_t v = 0;
    PROBE_OK(nexar_recv(&v, 1, NEXAR_INT64, 1, 30, c.h));
    PROBE_CHECK(v == 1234);
    PROBE_OK(nexar_iprobe(NEXAR_ANY_SOURCE, 30, c.h, &flag, &st));
    PROBE_CHECK(flag == 0);
  } else if (c.rank == 1) {
    int go = 0;
    PROBE_OK(nexar_recv(&go, 1, NEXAR_INT32, 0, 31, c.h));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int64_t v = 1234;
    PROBE_OK(nexar_send(&v, 1, NEXAR_INT64, 0, 30, c.h));
  }
  PROBE_OK(nexar_barrier(c.h));
}

// A message longer than the receive: an error naming both sizes, nothing written past the
// buffer, the message dropped (the next one on the tag arrives), the communicator usable.
void truncation(const Comm& c) {
  if (c.rank == 0) {
    auto big = message(0, 40, 800), huge = message(0, 41, 1 << 20);
    PROBE_OK(nexar_send(big.data(), 100, NEXAR_INT64, 1, 40, c.h));
    int32_t three[3] = {7, 8, 9};
    PROBE_OK(nexar_send(three, 3, NEXAR_INT32, 1, 40, c.h));
    PROBE_OK(nexar_send(huge.data(), huge.size(), NEXAR_UINT8, 1, 41, c.h));
    PROBE_OK(nexar_send(three, 3, NEXAR_INT32, 1, 41, c.h));
  } else if (c.rank == 1) {
    std::vector<int64_t> in(12, -1);
    nexar_status_t st;
    PROBE_CHECK(nexar_recv_status(in.data(), 10, NEXAR_INT64, 0, 40, c.h, &st) == NEXAR_ERR_INVALID_ARGUMENT);
    const std::string err = nexar_comm_last_error(c.h);
    PROBE_CHECK(err.find("message of 800 bytes") != std::string::npos && err.find("receive of 80 bytes") != std::string::npos);
    PROBE_CHECK(err.find("from rank 0") != std::string::npos);
    PROBE_CHECK(st.source == 0 && st.tag == 40 && st.bytes == 800);
    for (int64_t v : in) PROBE_CHECK(v == -1);
    int32_t three[4] = {0, 0, 0, -1};
    PROBE_OK(nexar_recv_status(three, 4, NEXAR_INT32, 0, 40, c.h, &st));
    PROBE_CHECK(st.bytes == 12 && three[0] == 7 && three[2] == 9 && three[3] == -1);
    // recvv behaves alike.
    std::vector<unsigned char> a(300, 0xee), b(700, 0xee);
    nexar_iovec_t iov[3] = {{a.data(), 299}, {nullptr, 0}, {b.data(), 699}};
    PROBE_CHECK(nexar_recvv(iov, 3, 0, 41, c.h, &st) == NEXAR_ERR_INVALID_ARGUMENT);
    PROBE_CHECK(std::strstr(nexar_comm_last_error(c.h), "998 bytes") != nullptr);
    PROBE_CHECK(st.bytes == (1u << 20));
    for (unsigned char x : a) PROBE_CHECK(x == 0xee);
    for (unsigned char x : b) PROBE_CHECK(x == 0xee);
    PROBE_OK(nexar_recvv(iov, 3, 0, 41, c.h, &st));
    PROBE_CHECK(st.bytes == 12 && a[299] == 0xee);
  }
  PROBE_OK(nexar_barrier(c.h));
}

// Regions of the given sizes carved from buf (with a guard byte after each).
std::vector<nexar_iovec_t> carve(std::vector<unsigned char>& buf, const std::vector<size_t>& sizes) {
  size_t total = 0;
  for (size_t s : sizes) total += s + 1;
  buf.assign(total, 0xee);
  std::vector<nexar_iovec_t> iov;
  size_t off = 0;
  for (size_t s : sizes) {
    iov.push_back({s ? buf.data() + off : nullptr, s});
    off += s + 1;
  }
  return iov;
}

// The concatenation of the regions' first n bytes; checks every guard byte.
std::vector<unsigned char> joined(const std::vector<nexar_iovec_t>& iov, size_t n) {
  std::vector<unsigned char> out;
  for (const auto& r : iov) {
    const auto* p = static_cast<const unsigned char*>(r.base);
    const size_t k = std::min(r.bytes, n - out.size());
    out.insert(out.end(), p, p + k);
    if (r.bytes) PROBE_CHECK(p[r.bytes] == 0xee);
  }
  return out;
}

// sendv gathers uneven and empty regions into one message; recvv scatters one message
// into regions split elsewhere; each works with the plain forms too.
void iovec(const Comm& c) {
  const int to = (c.rank + 1) % c.size, from = (c.rank + c.size - 1) % c.size;
  for (size_t big : {size_t{100}, size_t{3} << 20}) {
    const std::vector<size_t> send_sizes = {0, 7, 0, 100000, 3, big, 0};
    size_t total = 0;
    for (size_t s : send_sizes) total += s;
    auto whole = message(c.rank, 50, total);
    std::vector<nexar_iovec_t> siov;
    size_t off = 0;
    for (size_t s : send_sizes) {
      siov.push_back({s ? whole.data() + off : nullptr, s});
      off += s;
    }
    auto want = message(from, 50, total);
    // sendv -> recvv with other boundaries and room to spare.
    std::vector<unsigned char> rbuf;
    auto riov = carve(rbuf, {1, 0, 50000, total - 50001 - 5, 0, 5 + 16});
    nexar_request_t rr;
    nexar_status_t st;
    std::thread rx([&] { PROBE_OK(nexar_recvv(riov.data(), riov.size(), from, 51, c.h, &st)); });
    PROBE_OK(nexar_sendv(siov.data(), siov.size(), to, 51, c.h));
    rx.join();
    PROBE_CHECK(st.source == from && st.tag == 51 && st.bytes == total);
    PROBE_CHECK(joined(riov, total) == want);
    // sendv -> recv, send -> recvv.
    std::vector<unsigned char> plain(total + 4, 0xee);
    PROBE_OK(nexar_irecv(plain.data(), plain.size(), NEXAR_UINT8, from, 52, c.h, &rr));
    PROBE_OK(nexar_sendv(siov.data(), siov.size(), to, 52, c.h));
    PROBE_OK(nexar_wait_status(rr, &st));
    PROBE_CHECK(st.bytes == total && same(plain.data(), from, 50, total) && plain[total] == 0xee);
    riov = carve(rbuf, {total / 3, 0, total - total / 3});
    std::thread rx2([&] { PROBE_OK(nexar_recvv(riov.data(), riov.size(), NEXAR_ANY_SOURCE, 53, c.h, &st)); });
    PROBE_OK(nexar_send(whole.data(), total, NEXAR_UINT8, to, 53, c.h));
    rx2.join();
    PROBE_CHECK(st.source == from && joined(riov, total) == want);
  }
  // Nothing at all: no regions, or only empty ones.
  nexar_iovec_t none[2] = {{nullptr, 0}, {nullptr, 0}};
  nexar_status_t st;
  std::thread rx([&] { PROBE_OK(nexar_recvv(nullptr, 0, from, 54, c.h, &st)); });
  PROBE_OK(nexar_sendv(none, 2, to, 54, c.h));
  rx.join();
  PROBE_CHECK(st.source == from && st.bytes == 0);
  // Bad lists are named.
  PROBE_CHECK(nexar_sendv(nullptr, 2, to, 54, c.h) == NEXAR_ERR_INVALID_ARGUMENT);
  nexar_iovec_t bad[2] = {{none, 0}, {nullptr, 5}};
  PROBE_CHECK(nexar_recvv(bad, 2, from, 54, c.h, &st) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(std::strstr(nexar_comm_last_error(c.h), "region 1") != nullptr);
  PROBE_OK(nexar_barrier(c.h));
}

// A ring of blocking receive-then-send, which deadlocks without a group; with requests,
// statuses and a nested group.
void group_ring(const Comm& c) {
  const int to = (c.rank + 1) % c.size, from = (c.rank + c.size - 1) % c.size;
  const size_t n = (2u << 20) + static_cast<size_t>(c.rank);
  auto out = message(c.rank, 60, n);
  std::vector<unsigned char> in(n + 8);
  nexar_status_t st;
  PROBE_OK(nexar_group_start());
  PROBE_OK(nexar_recv_status(in.data(), in.size(), NEXAR_UINT8, from, 60, c.h, &st));
  PROBE_OK(nexar_send(out.data(), n, NEXAR_UINT8, to, 60, c.h));
  PROBE_OK(nexar_group_end());
  PROBE_CHECK(st.source == from && st.tag == 60 && st.bytes == n - static_cast<size_t>(c.rank) + static_cast<size_t>(from));
  PROBE_CHECK(same(in.data(), from, 60, st.bytes));
  // Nested: only the outer end starts them; requests are waited for afterwards; the ring
  // goes both ways with sendv/recvv in it.
  int32_t left = -1, right = -1, me = c.rank;
  nexar_request_t reqs[3];
  PROBE_OK(nexar_group_start());
  PROBE_OK(nexar_isend(&me, 1, NEXAR_INT32, to, 61, c.h, &reqs[0]));
  PROBE_OK(nexar_group_start());
  PROBE_OK(nexar_irecv(&left, 1, NEXAR_INT32, from, 61, c.h, &reqs[1]));
  PROBE_OK(nexar_isend(&me, 1, NEXAR_INT32, from, 62, c.h, &reqs[2]));
  PROBE_OK(nexar_group_end());
  PROBE_CHECK(left == -1);  // only the outer end starts them
  nexar_iovec_t r1[2] = {{&right, 2}, {reinterpret_cast<unsigned char*>(&right) + 2, 2}};
  PROBE_OK(nexar_recvv(r1, 2, to, 62, c.h, &st));
  PROBE_OK(nexar_group_end());
  PROBE_CHECK(left == from);  // complete when the group ends
  PROBE_CHECK(right == to && st.source == to && st.bytes == 4);
  PROBE_OK(nexar_wait_status(reqs[1], &st));
  reqs[1] = nullptr;
  PROBE_CHECK(st.source == from && st.tag == 61 && st.bytes == 4);
  PROBE_OK(nexar_waitall(3, reqs));
  PROBE_OK(nexar_barrier(c.h));
}

// Errors inside a group surface at its end, naming the operation; argument errors also
// at once; a request waited for too early is refused.
void group_errors(const Comm& c) {
  PROBE_CHECK(nexar_group_end() == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_CHECK(std::strstr(nexar_comm_last_error(nullptr), "without a matching") != nullptr);
  const int to = (c.rank + 1) % c.size, from = (c.rank + c.size - 1) % c.size;
  int32_t v = c.rank, got = -1;
  PROBE_OK(nexar_group_start());
  PROBE_OK(nexar_send(&v, 1, NEXAR_INT32, to, 70, c.h));
  PROBE_CHECK(nexar_send(&v, 1, NEXAR_INT32, c.size, 70, c.h) == NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_OK(nexar_recv(&got, 1, NEXAR_INT32, from, 70, c.h));
  PROBE_CHECK(nexar_group_end() == NEXAR_ERR_INVALID_ARGUMENT);
  std::string err = nexar_comm_last_error(nullptr);
  PROBE_CHECK(err.find("operation 2 of 3") != std::string::npos && err.find("peer") != std::string::npos);
  PROBE_CHECK(got == from);  // the others ran
  // A receive too short inside a group: the group's end names it; the rest completes.
  int64_t four[4] = {1, 2, 3, 4}, two[3] = {-1, -1, -1}, one = -1;
  nexar_request_t early;
  PROBE_OK(nexar_group_start());
  PROBE_OK(nexar_send(four, 4, NEXAR_INT64, to, 71, c.h));
  PROBE_OK(nexar_recv(two, 2, NEXAR_INT64, from, 71, c.h));
  PROBE_OK(nexar_send(four, 1, NEXAR_INT64, to, 72, c.h));
  PROBE_OK(nexar_irecv(&one, 1, NEXAR_INT64, from, 72, c.h, &early));
  PROBE_CHECK(nexar_wait(early) == NEXAR_ERR_INVALID_ARGUMENT);  // its group has not ended
  PROBE_CHECK(std::strstr(nexar_comm_last_error(nullptr), "nexar_group_end") != nullptr);
  PROBE_CHECK(nexar_group_end() == NEXAR_ERR_INVALID_ARGUMENT);
  err = nexar_comm_last_error(nullptr);
  PROBE_CHECK(err.find("(receive from rank " + std::to_string(from) + " (tag 71))") != std::string::npos);
  PROBE_CHECK(err.find("32 bytes") != std::string::npos && err.find("16 bytes") != std::string::npos);
  PROBE_CHECK(std::strstr(nexar_comm_last_error(c.h), "operation 2 of 4") != nullptr);
  PROBE_CHECK(two[0] == -1 && two[2] == -1);
  PROBE_CHECK(one == 1);  // the early-waited receive still ran at the end
  PROBE_OK(nexar_barrier(c.h));
}

// A request of a group waited for by another thread before the group ends: that wait
// lasts until the group's end starts it, then completes and frees it like any other (it
// was refused and never freed: a leak under LeakSanitizer); nexar_test says "not yet".
void group_other_thread(const Comm& c) {
  const int to = (c.rank + 1) % c.size, from = (c.rank + c.size - 1) % c.size;
  int32_t me = c.rank, got = -1;
  nexar_request_t req = nullptr;
  PROBE_OK(nexar_group_start());
  PROBE_OK(nexar_irecv(&got, 1, NEXAR_INT32, from, 74, c.h, &req));
  int done = -1;
  // This thread's own group: refused at once (and the request consumed; its receive still runs).
  PROBE_CHECK(nexar_test(req, &done) == NEXAR_ERR_INVALID_ARGUMENT && done == 1);
  nexar_request_t held = nullptr;
  PROBE_OK(nexar_irecv(&got, 1, NEXAR_INT32, from, 75, c.h, &held));
  nexar_result_t waited = NEXAR_ERR_INTERNAL;
  std::thread other([&] {
    int d = -1;
    PROBE_CHECK(nexar_test(held, &d) == NEXAR_IN_PROGRESS && d == 0);
    waited = nexar_wait(held);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  PROBE_OK(nexar_send(&me, 1, NEXAR_INT32, to, 74, c.h));
  PROBE_OK(nexar_send(&me, 1, NEXAR_INT32, to, 75, c.h));
  PROBE_OK(nexar_group_end());
  other.join();
  PROBE_CHECK(waited == NEXAR_SUCCESS);
  PROBE_CHECK(got == from);
  PROBE_OK(nexar_barrier(c.h));
}

// Collectives inside a group are queued when it ends, after its sends and receives.
void group_collectives(const Comm& c) {
  const int64_t n = c.size, ranks_sum = n * (n - 1) / 2;
  // Rank 0 groups its sends and an allreduce; the others receive (outside any group)
  // before their allreduce. Run at once, rank 0's allreduce would wait for them forever.
  int64_t mine = c.rank, total = -1, got = -1;
  if (c.rank == 0) {
    PROBE_OK(nexar_group_start());
    for (int r = 1; r < c.size; ++r) PROBE_OK(nexar_send(&mine, 1, NEXAR_INT64, r, 90, c.h));
    PROBE_OK(nexar_allreduce(&mine, &total, 1, NEXAR_INT64, NEXAR_SUM, c.h));
    PROBE_CHECK(total == -1);  // posted, not run: the blocking form returns at once
    PROBE_OK(nexar_group_end());
  } else {
    PROBE_OK(nexar_recv(&got, 1, NEXAR_INT64, 0, 90, c.h));
    PROBE_CHECK(got == 0);
    PROBE_OK(nexar_allreduce(&mine, &total, 1, NEXAR_INT64, NEXAR_SUM, c.h));
  }
  PROBE_CHECK(total == ranks_sum);

  // Two communicators in opposite orders on even and odd ranks (run at once: even ranks
  // wait in c for odd ones waiting in d); a request of the group waited for after its end;
  // the bucketed allreduce's arrays are the group's copies (scribbled on before the end).
  nexar_comm_t d = nullptr;
  PROBE_OK(nexar_comm_dup(c.h, &d));
  int64_t a = -1, b = -1, ten = 10 * mine;
  int32_t x[2] = {c.rank, 1}, y[3] = {2, c.rank, 3};
  void* bufs[2] = {x, y};
  size_t counts[2] = {2, 3};
  nexar_request_t req = nullptr;
  PROBE_OK(nexar_group_start());
  if (c.rank % 2 == 0) {
    PROBE_OK(nexar_allreduce(&mine, &a, 1, NEXAR_INT64, NEXAR_SUM, c.h));
    PROBE_OK(nexar_iallreduce(&ten, &b, 1, NEXAR_INT64, NEXAR_SUM, d, &req));
  } else {
    PROBE_OK(nexar_allreduce(&ten, &b, 1, NEXAR_INT64, NEXAR_SUM, d));
    PROBE_OK(nexar_iallreduce(&mine, &a, 1, NEXAR_INT64, NEXAR_SUM, c.h, &req));
  }
  PROBE_OK(nexar_allreduce_bucketed(bufs, counts, 2, NEXAR_INT32, NEXAR_SUM, d));
  bufs[0] = bufs[1] = nullptr;
  counts[0] = counts[1] = 1u << 30;
  PROBE_OK(nexar_group_end());
  PROBE_OK(nexar_wait(req));
  PROBE_CHECK(a == ranks_sum && b == 10 * ranks_sum);
  PROBE_CHECK(x[0] == ranks_sum && x[1] == n && y[0] == 2 * n && y[1] == ranks_sum && y[2] == 3 * n);

  // A collective refused when posted: at once, and by the group's end naming it; the rest runs.
  PROBE_OK(nexar_group_start());
  PROBE_CHECK(nexar_allreduce(&mine, &a, 1, NEXAR_INT64, static_cast<nexar_op_t>(99), c.h) ==
              NEXAR_ERR_INVALID_ARGUMENT);
  PROBE_OK(nexar_allreduce(&mine, &b, 1, NEXAR_INT64, NEXAR_MAX, d));
  PROBE_CHECK(nexar_group_end() == NEXAR_ERR_INVALID_ARGUMENT);
  std::string err = nexar_comm_last_error(nullptr);
  PROBE_CHECK(err.find("operation 1 of 2 in the group (allreduce)") != std::string::npos);
  PROBE_CHECK(b == n - 1);
  PROBE_OK(nexar_comm_destroy(d));
  PROBE_OK(nexar_barrier(c.h));
}

// The C++ wrapper: MessageStatus, region(), GroupGuard, iprobe's optional.
void cpp(const Comm& c) {
  nexar_comm_t d = nullptr;
  PROBE_OK(nexar_comm_dup(c.h, &d));
  nexar::Communicator cc(d);
  const int to = (c.rank + 1) % c.size, from = (c.rank + c.size - 1) % c.size;
  std::vector<int32_t> head(3, c.rank), tail(5, -c.rank);
  std::vector<int32_t> got(8, 0);
  {
    nexar::GroupGuard g;
    nexar_iovec_t parts[2] = {nexar::region(std::span<int32_t>(head)), nexar::region(std::span<int32_t>(tail))};
    cc.sendv(parts, to, 80);
    cc.recv(std::span<int32_t>(got), from, 80);
    g.end();
  }
  PROBE_CHECK(got[0] == from && got[2] == from && got[3] == -from && got[7] == -from);
  std::vector<double> v(17, 1.5);
  auto req = cc.isend(std::span<const double>(v), to, 81);
  nexar::MessageStatus st = cc.probe(from, 81);
  PROBE_CHECK(st.source == from && st.count<double>() == 17);
  std::vector<double> in(st.count<double>());
  std::vector<double> lo(5), hi(12);
  nexar_iovec_t parts[2] = {nexar::region(std::span<double>(lo)), nexar::region(std::span<double>(hi))};
  st = cc.recvv(parts, st.source, st.tag);
  PROBE_CHECK(st.bytes == 17 * sizeof(double) && lo[4] == 1.5 && hi[11] == 1.5);
  req.wait();
  PROBE_CHECK(!cc.iprobe(from, 81).has_value());
  cc.barrier();
}

void run_all(const Comm& c) {
  unknown_size(c);
  if (c.size > 1) {
    any_source(c);
    iprobe_poll(c);
    truncation(c);
  }
  iovec(c);
  group_ring(c);
  group_errors(c);
  group_other_thread(c);
  group_collectives(c);
  cpp(c);
  std::printf("rank %d: %s ok\n", g_rank, c.name);
}

// A probe that finds nothing times out like a receive; one waiting when a member revokes
// the communicator returns NEXAR_ERR_REVOKED.
void fail() {
  nexar_comm_t d = nullptr;
  PROBE_OK(nexar_comm_dup(g_world, &d));
  if (g_rank == 1) {
    PROBE_OK(nexar_comm_set_timeout(d, 1.0));
    nexar_status_t st;
    const auto t0 = std::chrono::steady_clock::now();
    PROBE_CHECK(nexar_probe(0, 99, d, &st) == NEXAR_ERR_TIMEOUT);
    const double s = probe::seconds_since(t0);
    PROBE_CHECK(s >= 0.9 && s < 10);
    PROBE_CHECK(std::strstr(nexar_comm_last_error(d), "probe for a message (receive from rank 0 (tag 99))") != nullptr);
    const auto t1 = std::chrono::steady_clock::now();
    PROBE_CHECK(nexar_probe(NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, g_world, &st) == NEXAR_ERR_REVOKED);
    PROBE_CHECK(probe::seconds_since(t1) < 20);
    std::printf("rank %d: fail ok (timeout after %.2f s)\n", g_rank, s);
  } else if (g_rank == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    PROBE_OK(nexar_comm_revoke(g_world));
    std::printf("rank %d: fail ok\n", g_rank);
  }
  (void)nexar_comm_destroy(d);
  (void)nexar_comm_destroy(g_world);
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: msg_probe all|fail\n");
    return 2;
  }
  PROBE_OK(nexar_init(&g_world));
  Comm w{g_world, 0, 0, "world"};
  PROBE_OK(nexar_comm_rank(g_world, &w.rank));
  PROBE_OK(nexar_comm_size(g_world, &w.size));
  g_rank = w.rank;
  const std::string s = argv[1];
  if (s == "fail") fail();
  if (s != "all") {
    std::fprintf(stderr, "unknown scenario %s\n", s.c_str());
    return 2;
  }
  run_all(w);
  Comm rev{nullptr, 0, 0, "split"};
  PROBE_OK(nexar_comm_split(g_world, 0, w.size - w.rank, &rev.h));
  PROBE_OK(nexar_comm_rank(rev.h, &rev.rank));
  PROBE_OK(nexar_comm_size(rev.h, &rev.size));
  PROBE_CHECK(rev.rank == w.size - 1 - w.rank);
  run_all(rev);
  PROBE_OK(nexar_comm_destroy(rev.h));
  PROBE_OK(nexar_comm_destroy(g_world));
  return 0;
}
