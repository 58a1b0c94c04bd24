// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The point-to-point engine alone, driven through its transport seam by a fake link (the
// test plays the link: it delivers messages as a transport would and records what the
// engine asks of it): matching order, ANY_SOURCE / ANY_TAG, the unexpected-store limit
// and its credit, a cancel while a payload is being placed into the receive buffer.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "nexar/nexar.h"
#include "p2p/engine.h"

namespace nexar::p2p {
namespace {

constexpr uint32_t kCtx = 2;
constexpr int kPeer = 1;  // the world rank the fake link reaches

class FakeLink final : public transport::PeerLink {
 public:
  void send(transport::SendOp* op) override {
    sent.push_back(op->hdr);
    op->complete(Status::Ok());
  }
  void resume() override { resumes.fetch_add(1); }
  void send_abort(uint32_t, const Status&) override { aborts.fetch_add(1); }
  void cancel(transport::SendOp*, const Status&) override {}

  std::vector<transport::MsgHeader> sent;
  std::atomic<int> resumes{0};
  std::atomic<int> aborts{0};
};

struct Fixture {
  explicit Fixture(size_t unexpected_limit = size_t{1} << 20) : engine(0, 2, unexpected_limit) {
    engine.set_link(kPeer, &link);
    engine.register_context(kCtx, {0, 1});
  }
  // Delivers a whole small message from the peer, as a link does; returns the sink's answer.
  bool deliver(int tag, const std::vector<uint8_t>& payload) {
    transport::MsgHeader h;
    h.ctx = kCtx;
    h.tag = tag;
    h.len = payload.size();
    return engine.on_message(kPeer, h, payload.data());
  }
  // A large message from the peer begins, as a link announces one; its payload follows.
  transport::InboundMsg* begin(int tag, size_t len) {
    transport::MsgHeader h;
    h.ctx = kCtx;
    h.tag = tag;
    h.len = len;
    return engine.on_message_begin(kPeer, h);
  }
  RequestPtr recv(int src, int tag, std::vector<uint8_t>* buf) {
    RequestPtr r;
    REQUIRE(engine.irecv(kCtx, src, tag, buf->data(), buf->size(), nullptr, &r).ok());
    return r;
  }
  FakeLink link;
  Engine engine;
};

std::vector<uint8_t> filled(size_t n, uint8_t v) { return std::vector<uint8_t>(n, v); }

}  // namespace

TEST_CASE("messages from one peer match receives in the order they arrived", "[p2p][engine]") {
  Fixture f;
  REQUIRE(f.deliver(5, filled(8, 'A')));
  REQUIRE(f.deliver(7, filled(8, 'B')));
  REQUIRE(f.deliver(5, filled(8, 'C')));
  std::vector<uint8_t> b1(8), b2(8), b3(8);
  RequestPtr r1 = f.recv(kPeer, 5, &b1);               // the first tag-5 message
  RequestPtr r2 = f.recv(NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, &b2);  // the oldest left: B
  RequestPtr r3 = f.recv(NEXAR_ANY_SOURCE, 5, &b3);    // C
  for (const RequestPtr& r : {r1, r2, r3}) {
    REQUIRE(r->done());
    CHECK(r->result().ok());
    CHECK(r->source == kPeer);
  }
  CHECK(b1[0] == 'A');
  CHECK(b2[0] == 'B');
  CHECK(r2->tag == 7);
  CHECK(b3[0] == 'C');
}

TEST_CASE("posted receives take arriving messages in posting order", "[p2p][engine]") {
  Fixture f;
  std::vector<uint8_t> b1(4), b2(4), b3(4);
  RequestPtr any = f.recv(NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, &b1);
  RequestPtr tag9 = f.recv(kPeer, 9, &b2);
  RequestPtr tag3 = f.recv(kPeer, 3, &b3);
  REQUIRE(f.deliver(9, filled(4, 'x')));  // the wildcard was posted first: it takes this one
  CHECK(any->done());
  CHECK_FALSE(tag9->done());
  CHECK(any->tag == 9);
  REQUIRE(f.deliver(3, filled(4, 'y')));
  CHECK(tag3->done());
  CHECK_FALSE(tag9->done());
  REQUIRE(f.deliver(9, filled(4, 'z')));
  CHECK(tag9->done());
  CHECK(b1[0] == 'x');
  CHECK(b3[0] == 'y');
  CHECK(b2[0] == 'z');
}

TEST_CASE("a message longer than its receive fails that receive, naming both sizes", "[p2p][engine]") {
  Fixture f;
  std::vector<uint8_t> small(4, 0);
  RequestPtr r = f.recv(kPeer, 1, &small);
  REQUIRE(f.deliver(1, filled(16, 'L')));
  REQUIRE(r->done());
  CHECK(r->result().code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(r->result().message().find("16 bytes") != std::string::npos);
  CHECK(r->result().message().find("4 bytes") != std::string::npos);
  CHECK(small == std::vector<uint8_t>(4, 0));  // nothing of it written
}

TEST_CASE("above the unexpected limit the sink asks for credit to be held; receives give it back",
          "[p2p][engine]") {
  Fixture f(1000);
  CHECK(f.deliver(1, filled(600, 1)));
  CHECK_FALSE(f.deliver(2, filled(600, 2)));  // 1200 bytes held: hold the peer's credit
  CHECK(f.link.resumes.load() == 0);
  std::vector<uint8_t> b(600);
  RequestPtr r = f.recv(kPeer, 1, &b);  // 600 held: under the limit again
  REQUIRE(r->done());
  CHECK(f.link.resumes.load() == 1);
  RequestPtr r2 = f.recv(kPeer, 2, &b);
  REQUIRE(r2->done());
  CHECK(b[0] == 2);
  CHECK(f.link.resumes.load() == 1);  // nothing was held back any more
}

TEST_CASE("a cancel while the payload is placed waits until the placement finished", "[p2p][engine]") {
  Fixture f;
  std::vector<uint8_t> buf(4096, 0);
  RequestPtr r = f.recv(kPeer, 4, &buf);
  transport::InboundMsg* msg = f.begin(4, buf.size());
  REQUIRE(msg);
  uint8_t* dst = nullptr;
  REQUIRE(f.engine.claim_placement(msg, &dst) == transport::Placement::BOUND);
  REQUIRE(dst == buf.data());

  std::atomic<bool> finished{false}, cancel_returned{false}, finished_before_return{false};
  std::thread canceller([&] {
    f.engine.cancel(r, Status(NEXAR_ERR_TIMEOUT, "test cancel"));
    finished_before_return = finished.load();
    cancel_returned = true;
  });
  // The cancel must not return while the buffer is being written (bounded wait).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(cancel_returned.load());
  std::memset(dst, 'P', buf.size());
  finished = true;
  f.engine.finish_placement(msg, Status::Ok());
  canceller.join();
  CHECK(finished_before_return.load());
  REQUIRE(r->done());
  CHECK(r->result().ok());  // the placement completed it first; the cancel came too late
  CHECK(buf[4095] == 'P');
}

TEST_CASE("a cancel between pieces of a message discards the rest of it", "[p2p][engine]") {
  Fixture f;
  std::vector<uint8_t> buf(64, 0);
  RequestPtr r = f.recv(kPeer, 6, &buf);
  transport::InboundMsg* msg = f.begin(6, buf.size());
  REQUIRE(msg);
  const std::vector<uint8_t> half(32, 'h');
  CHECK(f.engine.on_message_data(msg, half.data(), half.size()));
  f.engine.cancel(r, Status(NEXAR_ERR_TIMEOUT, "test cancel"));
  REQUIRE(r->done());
  CHECK(r->result().code() == NEXAR_ERR_TIMEOUT);
  const std::vector<uint8_t> rest(32, 'r');
  CHECK(f.engine.on_message_data(msg, rest.data(), rest.size()));  // the last piece: freed
  CHECK(buf[40] == 0);  // never written after the cancel
  // The next message with that tag goes to the next receive.
  std::vector<uint8_t> b2(8);
  RequestPtr r2 = f.recv(kPeer, 6, &b2);
  REQUIRE(f.deliver(6, filled(8, 'n')));
  REQUIRE(r2->done());
  CHECK(b2[0] == 'n');
}

}  // namespace nexar::p2p
