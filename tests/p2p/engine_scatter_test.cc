// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine::irecvv: one message scattered across regions in order, whether it is stored,
// sent inline, placed by the receiver (CMA) or copied through the ring; a message longer
// than the regions fails the receive and writes nothing.
#include <catch.hpp>
#include <cstring>
#include <thread>

#include "p2p/engine_test_util.h"

using namespace nexar;
using namespace nexar::p2p::test;
using namespace nexar::shm::test;

namespace {

// Regions of the given sizes inside one buffer, each followed by a guard byte.
struct Scatter {
  std::vector<uint8_t> mem;
  std::vector<iovec> iov;
  std::vector<size_t> at;
  explicit Scatter(const std::vector<size_t>& sizes) {
    size_t total = 0;
    for (size_t s : sizes) total += s + 1;
    mem.assign(total, 0xee);
    size_t off = 0;
    for (size_t s : sizes) {
      iov.push_back(iovec{mem.data() + off, s});
      at.push_back(off);
      off += s + 1;
    }
  }
  // The first n bytes gathered back, and whether every guard byte is untouched.
  std::vector<uint8_t> gather(size_t n) const {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < iov.size() && out.size() < n; ++i) {
      const size_t k = std::min(iov[i].iov_len, n - out.size());
      out.insert(out.end(), mem.begin() + static_cast<long>(at[i]), mem.begin() + static_cast<long>(at[i] + k));
    }
    return out;
  }
  bool guards_intact() const {
    for (size_t i = 0; i < iov.size(); ++i)
      if (mem[at[i] + iov[i].iov_len] != 0xee) return false;
    return true;
  }
};

Status recvv(ShmPair& pair, std::vector<iovec> iov, int tag, size_t* got) {
  p2p::RequestPtr r;
  NX_RETURN_IF_ERROR(pair.engine(1).irecvv(kCtx, 0, tag, std::move(iov), &r));
  Status st = r->wait_until(in_seconds(20));
  if (st.code() == NEXAR_ERR_TIMEOUT) pair.engine(1).cancel(r, st);
  *got = r->bytes;
  return st;
}
}  // namespace

TEST_CASE("a scattering receive fills uneven and empty regions in order on every path", "[p2p]") {
  for (bool cma : {true, false}) {
    INFO("CMA " << cma);
    ShmPair pair(moving_by(cma));
    REQUIRE(pair.status().ok());
    const std::vector<size_t> sizes = {0, 10, 4000, 1, 70000, 0, 3u << 20};
    for (size_t n : {size_t{0}, size_t{13}, size_t{3000}, size_t{74011}, size_t{(3u << 20) + 74011}}) {
      for (bool posted_first : {true, false}) {
        INFO("message of " << n << " bytes, receive posted first " << posted_first);
        const int tag = static_cast<int>(n % 1000);
        auto msg = bytes_of(n, static_cast<uint8_t>(n));
        Scatter sc(sizes);
        Status rs, ss;
        size_t got = 0;
        if (posted_first) {
          std::thread t([&] { rs = recvv(pair, sc.iov, tag, &got); });
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          ss = pair.send(0, tag, msg.data(), msg.size());
          t.join();
        } else {
          std::thread t([&] { ss = pair.send(0, tag, msg.data(), msg.size()); });
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          rs = recvv(pair, sc.iov, tag, &got);
          t.join();
        }
        REQUIRE(ss.ok());
        REQUIRE(rs.ok());
        CHECK(got == n);
        CHECK(sc.gather(n) == msg);
        CHECK(sc.guards_intact());
      }
    }
  }
}

TEST_CASE("a message longer than the regions fails the scattering receive and writes nothing", "[p2p]") {
  for (size_t n : {size_t{100}, size_t{1u << 20}}) {
    INFO("message of " << n << " bytes");
    ShmPair pair;
    REQUIRE(pair.status().ok());
    auto msg = bytes_of(n, 7);
    Scatter sc({n / 4, 0, n / 2});
    Status ss;
    std::thread t([&] { ss = pair.send(0, 1, msg.data(), msg.size()); });
    // Its header is here first: the receive drops a message a link holds for placement.
    p2p::Engine::Probed p;
    REQUIRE(pair.engine(1).probe(kCtx, 0, 1, in_seconds(10), &p).ok());
    size_t got = 0;
    Status rs = recvv(pair, sc.iov, 1, &got);
    t.join();
    CHECK(ss.ok());  // the sender completes: the message is dropped
    CHECK(rs.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(rs.message().find(std::to_string(n) + " bytes") != std::string::npos);
    CHECK(rs.message().find(std::to_string(n / 4 + n / 2) + " bytes") != std::string::npos);
    CHECK(got == n);
    for (uint8_t b : sc.mem) REQUIRE(b == 0xee);
    // The link goes on: the next message arrives.
    int v = 42, w = 0;
    std::thread t2([&] { ss = pair.send(0, 2, &v, sizeof v); });
    CHECK(pair.recv(1, 0, 2, &w, sizeof w).ok());
    t2.join();
    CHECK(w == 42);
  }
}
