// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The shared-memory transport in one process: segments, rings, and two engines joined by
// real shared memory (ShmPair), with CMA and with copies through the ring.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch.hpp>
#include <cstring>
#include <thread>

#include "shm/shm_pair.h"
#include "transport/shm/ring.h"
#include "transport/shm/segment.h"

using namespace nexar;
using namespace nexar::shm;
using nexar::shm::test::ShmPair;
using nexar::shm::test::PairOptions;

namespace {

bool in_dev_shm(const std::string& name) {
  struct stat st;
  return ::stat(("/dev/shm" + name).c_str(), &st) == 0;
}

uint8_t pattern(size_t msg, size_t i) { return static_cast<uint8_t>((i * 131u) ^ (msg * 7919u) ^ (i >> 11)); }

std::vector<uint8_t> payload(size_t msg, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = pattern(msg, i);
  return v;
}

bool intact(size_t msg, const std::vector<uint8_t>& v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (v[i] != pattern(msg, i)) return false;
  return true;
}

}  // namespace

TEST_CASE("segments are made with O_EXCL and mode 0600; foreign ones are refused", "[shm]") {
  const std::string name = "/nexar-unit-" + std::to_string(::getpid());
  std::unique_ptr<Segment> seg;
  ::umask(022);
  REQUIRE(Segment::create(name, 8192, &seg).ok());
  struct stat st;
  REQUIRE(::stat(("/dev/shm" + name).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  std::unique_ptr<Segment> again;
  CHECK(Segment::create(name, 8192, &again).code() == NEXAR_ERR_SYSTEM);  // never an existing object
  seg->unlink();
  CHECK_FALSE(in_dev_shm(name));

  // An object readable by others is not ours to map.
  int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::fchmod(fd, 0644) == 0);
  REQUIRE(::ftruncate(fd, 8192) == 0);
  ::close(fd);
  bool absent = true;
  std::unique_ptr<Segment> opened;
  Status s = Segment::open(name, 4096, &opened, &absent);
  ::shm_unlink(name.c_str());
  CHECK(s.code() == NEXAR_ERR_AUTH);
  CHECK(s.message().find("mode 644") != std::string::npos);
  CHECK(Segment::open(name, 4096, &opened, &absent).ok());
  CHECK(absent);
}

TEST_CASE("ring records wrap with padding, and a corrupt header is caught", "[shm]") {
  alignas(64) static SlotCtl ctl;
  static uint8_t data[4096];
  RingWriter w(&ctl, data, sizeof(data));
  RingReader r(&ctl, data, sizeof(data));
  bool bad = false;
  size_t sent = 0, got = 0;
  for (int round = 0; round < 200; ++round) {
    const size_t n = 100 + static_cast<size_t>(round * 37) % 900;
    uint8_t* p = w.reserve(4, n);
    if (!p) {  // full: drain everything, then it must fit
      while (const RecHdr* h = r.peek(&bad)) {
        REQUIRE(h->type == 4);
        const auto* q = reinterpret_cast<const uint8_t*>(h + 1);
        REQUIRE(q[0] == static_cast<uint8_t>(got));
        ++got;
        r.consume();
      }
      p = w.reserve(4, n);
      REQUIRE(p);
    }
    std::memset(p, static_cast<int>(static_cast<uint8_t>(sent)), n);
    ++sent;
    w.commit();
  }
  while (const RecHdr* h = r.peek(&bad)) {
    REQUIRE(reinterpret_cast<const uint8_t*>(h + 1)[0] == static_cast<uint8_t>(got));
    ++got;
    r.consume();
  }
  CHECK_FALSE(bad);
  CHECK(got == sent);
  // A record claiming more than the ring holds.
  uint8_t* p = w.reserve(4, 8);
  REQUIRE(p);
  reinterpret_cast<RecHdr*>(p - sizeof(RecHdr))->size = 1u << 20;
  w.commit();
  CHECK(r.peek(&bad) == nullptr);
  CHECK(bad);
}

TEST_CASE("inboxes are unlinked as soon as both ranks mapped them", "[shm]") {
  ShmPair pair;
  REQUIRE(pair.status().ok());
  CHECK_FALSE(in_dev_shm(pair.inbox_name(0)));
  CHECK_FALSE(in_dev_shm(pair.inbox_name(1)));
}

TEST_CASE("messages of 0 bytes to 64 MiB arrive intact, posted first or unexpected", "[shm]") {
  for (bool cma : {true, false}) {
    INFO("CMA " << cma);
    PairOptions opt;
    opt.cma = cma;
    ShmPair pair(opt);
    REQUIRE(pair.status().ok());
    CHECK(pair.hub(0).link(1)->cma() == cma);
    const std::vector<size_t> sizes = {0, 1, 7, 4096, 4097, 65535, 65536 + 3, 1u << 20, (64u << 20) + 1};
    // Even messages: the receive is posted before the send; odd: the send comes first.
    Status sender, receiver;
    std::thread rx([&] {
      for (size_t i = 0; i < sizes.size() && receiver.ok(); ++i) {
        std::vector<uint8_t> buf(sizes[i] + 16, 0xee);
        if (i % 2 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        size_t got = 0;
        receiver = pair.recv(1, 0, static_cast<int>(i), buf.data(), buf.size(), &got);
        if (receiver.ok() && (got != sizes[i] || !intact(i, buf, got) || buf[got] != 0xee))
          receiver = Status(NEXAR_ERR_INTERNAL, "message " + std::to_string(i) + " arrived wrong");
      }
    });
    for (size_t i = 0; i < sizes.size() && sender.ok(); ++i) {
      auto v = payload(i, sizes[i]);
      sender = pair.send(0, static_cast<int>(i), v.data(), v.size());
    }
    rx.join();
    CHECK(sender.to_string() == "NEXAR_SUCCESS");
    CHECK(receiver.to_string() == "NEXAR_SUCCESS");
  }
}

TEST_CASE("order per pair is kept, with ANY_TAG and a mix of sizes", "[shm]") {
  ShmPair pair;
  REQUIRE(pair.status().ok());
  constexpr int kMsgs = 400;
  std::vector<p2p::RequestPtr> sends;
  std::vector<std::vector<uint8_t>> bufs;
  for (int i = 0; i < kMsgs; ++i) {
    const size_t n = (i % 5 == 0) ? 20000 : 16;  // large ones (CMA) between small ones
    bufs.push_back(payload(static_cast<size_t>(i), n));
    std::memcpy(bufs.back().data(), &i, sizeof(i));
    p2p::RequestPtr r;
    REQUIRE(pair.engine(0).isend(ShmPair::kCtx, 1, i % 3, bufs.back().data(), n, 0, &r).ok());
    sends.push_back(r);
  }
  for (int i = 0; i < kMsgs; ++i) {
    std::vector<uint8_t> buf(20000);
    size_t got = 0;
    REQUIRE(pair.recv(1, 0, NEXAR_ANY_TAG, buf.data(), buf.size(), &got).ok());
    int seq;
    std::memcpy(&seq, buf.data(), sizeof(seq));
    REQUIRE(seq == i);
    REQUIRE(got == bufs[static_cast<size_t>(i)].size());
  }
  for (auto& r : sends) REQUIRE(r->wait_until(test::in_seconds(10)).ok());
}

TEST_CASE("unexpected messages past the limit hold the sender back, then all arrive", "[shm]") {
  PairOptions opt;
  opt.ring_bytes = 64u << 10;
  opt.eager_limit = 8192;
  opt.unexpected_limit = 128u << 10;
  ShmPair pair(opt);
  REQUIRE(pair.status().ok());
  constexpr int kMsgs = 200;  // 1.6 MB: far above the limit plus the ring
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<p2p::RequestPtr> sends;
  for (int i = 0; i < kMsgs; ++i) {
    bufs.push_back(payload(static_cast<size_t>(i), 8000));
    p2p::RequestPtr r;
    REQUIRE(pair.engine(0).isend(ShmPair::kCtx, 1, 1, bufs.back().data(), 8000, 0, &r).ok());
    sends.push_back(r);
  }
  // Nobody receives yet: the receiver's progress stores up to the limit, then holds.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int k = 0; k < 50; ++k) pair.hub(1).poll(), pair.hub(0).poll();
  int done = 0;
  for (auto& r : sends) done += r->done() ? 1 : 0;
  CHECK(done < kMsgs);  // held back
  CHECK(done > 0);
  for (int i = 0; i < kMsgs; ++i) {
    std::vector<uint8_t> buf(8000);
    REQUIRE(pair.recv(1, 0, 1, buf.data(), buf.size()).ok());
    REQUIRE(intact(static_cast<size_t>(i), buf, 8000));
  }
  for (auto& r : sends) REQUIRE(r->wait_until(test::in_seconds(10)).ok());
}

TEST_CASE("a large message nobody can take completes its send; the link goes on", "[shm]") {
  ShmPair pair;
  REQUIRE(pair.status().ok());
  auto big = payload(1, 1u << 20);
  p2p::RequestPtr s;
  REQUIRE(pair.engine(0).isend(ShmPair::kCtx, 1, 5, big.data(), big.size(), 0, &s).ok());
  std::vector<uint8_t> small(100);
  Status st = pair.recv(1, 0, 5, small.data(), small.size());
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);  // longer than the receive
  CHECK(s->wait_until(test::in_seconds(10)).ok());
  auto next = payload(2, 300000);
  Status sent;  // Catch assertions only on the main thread
  std::thread tx([&] { sent = pair.send(0, 6, next.data(), next.size()); });
  std::vector<uint8_t> buf(300000);
  CHECK(pair.recv(1, 0, 6, buf.data(), buf.size()).ok());
  tx.join();
  CHECK(sent.ok());
  CHECK(intact(2, buf, buf.size()));
}

TEST_CASE("a cancelled receive leaves the message for no one and the sender completes", "[shm]") {
  ShmPair pair;
  REQUIRE(pair.status().ok());
  std::vector<uint8_t> buf(1u << 20);
  p2p::RequestPtr r;
  REQUIRE(pair.engine(1).irecv(ShmPair::kCtx, 0, 9, buf.data(), buf.size(), nullptr, &r).ok());
  pair.engine(1).cancel(r, Status(NEXAR_ERR_TIMEOUT, "test"));
  CHECK(r->result().code() == NEXAR_ERR_TIMEOUT);
  auto big = payload(3, 1u << 20);
  Status sent;
  std::thread tx([&] { sent = pair.send(0, 9, big.data(), big.size()); });
  CHECK(pair.recv(1, 0, 9, buf.data(), buf.size()).ok());
  tx.join();
  CHECK(sent.ok());
  CHECK(intact(3, buf, buf.size()));
}

namespace {
// A send that counts its completions (a link must complete each op exactly once).
struct CountingOp : transport::SendOp {
  std::atomic<int> completions{0};
  void complete(const Status&) override { completions.fetch_add(1); }
};
}  // namespace

TEST_CASE("a failed link completes a large send whose data was waiting for ring space once", "[shm]") {
  // Issue 19: a STREAM (DATA after the receiver's CTS) queued behind a full ring was both in
  // the queue and awaiting its end, and fail() completed it from both.
  std::vector<uint8_t> big(1u << 20), small(4000);
  CountingOp big_op;
  std::vector<CountingOp> small_ops(40);
  PairOptions opt;
  opt.cma = false;                   // the receiver asks for the data (CTS): a STREAM
  opt.unexpected_limit = 64u << 10;  // it stops reading once the small messages pile up
  ShmPair pair(opt);
  REQUIRE(pair.status().ok());
  p2p::RequestPtr r;
  REQUIRE(pair.engine(1).irecv(ShmPair::kCtx, 0, 1, big.data(), big.size(), nullptr, &r).ok());
  ShmLink* link = pair.hub(0).link(1);
  big_op.hdr = transport::MsgHeader{ShmPair::kCtx, 1, big.size(), 0};
  big_op.data = big.data();
  link->send(&big_op);  // RTS first, then small messages the receiver holds unexpected
  for (CountingOp& op : small_ops) {
    op.hdr = transport::MsgHeader{ShmPair::kCtx, 2, small.size(), 0};
    op.data = small.data();
    link->send(&op);
  }
  // Both sides poll: the receiver answers the RTS with a CTS, reads small messages until it
  // is over its limit and holds; the sender queues the DATA behind the messages left.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (std::chrono::steady_clock::now() < until) {
    pair.hub(1).poll();
    pair.hub(0).poll();
  }
  CHECK(big_op.completions.load() == 0);
  link->fail(Status(NEXAR_ERR_PEER_LOST, "test"), /*notify_lost=*/false);
  CHECK(big_op.completions.load() == 1);
  for (CountingOp& op : small_ops) CHECK(op.completions.load() == 1);
}
