// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// QuicLink's receive side fed stream data directly, in the orders loss makes possible:
// a large message's whole payload on its stream before the control-stream LARGE frame
// that announces it (the frame's packet was lost and resent). The message reaches the
// sink whole, the link finishes exactly that stream, and the control stream stays
// writable. (A dangling stream id here once left a garbage FIN ahead of every later
// control frame: a completed small message never left, and the job timed out.)
#include <catch.hpp>

#include <cstring>
#include <vector>

#include "transport/quic_link/quic_link.h"

using namespace nexar;

namespace {

// The server side of a connection whose client is rank 1: records what the link asks of it.
class FakeConnection final : public quic::Connection {
 public:
  const tls::Identity& peer() const override { return peer_; }
  bool is_server() const override { return true; }
  std::string peer_address() const override { return "127.0.0.1:1"; }
  quic::Application* app() const override { return app_; }
  std::string alpn() const override { return quic_link::kAlpn; }
  void set_app(quic::Application* app) override { app_ = app; }
  Status open_bidi_stream(int64_t*) override { return Status(NEXAR_IN_PROGRESS, "not in this test"); }
  Status open_uni_stream(int64_t*) override { return Status(NEXAR_IN_PROGRESS, "not in this test"); }
  void extend_stream_window(int64_t, uint64_t n) override { credit += n; }
  void extend_conn_window(uint64_t) override {}
  void shutdown_stream(int64_t, uint64_t) override {}
  void schedule_write() override {}
  void close(uint64_t, const std::string& reason) override { closed = reason.empty() ? "closed" : reason; }
  void abort(const Status& why) override { closed = why.to_string(); }

  uint64_t credit = 0;
  std::string closed;

 private:
  tls::Identity peer_;
  quic::Application* app_ = nullptr;
};

struct Delivered {
  transport::MsgHeader hdr;
  std::vector<uint8_t> data;
  bool begun = false;
};

class RecordingSink final : public transport::InboundSink {
 public:
  bool on_message(int, const transport::MsgHeader&, const uint8_t*) override { return true; }
  transport::InboundMsg* on_message_begin(int, const transport::MsgHeader& hdr) override {
    msg.hdr = hdr;
    msg.begun = true;
    return reinterpret_cast<transport::InboundMsg*>(&msg);
  }
  bool on_message_data(transport::InboundMsg* m, const uint8_t* data, size_t n) override {
    auto* d = reinterpret_cast<Delivered*>(m);
    d->data.insert(d->data.end(), data, data + n);
    return true;
  }
  void on_message_abandon(transport::InboundMsg*, const Status&) override { ++abandoned; }
  void on_peer_lost(int, const Status&) override {}
  void on_remote_abort(int, uint32_t, const Status&) override {}

  Delivered msg;
  int abandoned = 0;
};

// What the link offers to write next: (stream, FIN, bytes).
struct Offer {
  int64_t sid = -1;
  bool fin = false;
  size_t bytes = 0;
};

Offer next_offer(quic_link::QuicLink& link, quic::Connection& conn) {
  Offer o;
  ngtcp2_vec vecs[16];
  const size_t n = link.next_write(conn, &o.sid, vecs, 16, &o.fin);
  for (size_t i = 0; i < n; ++i) o.bytes += vecs[i].len;
  return o;
}

}  // namespace

TEST_CASE("a large payload that arrives before its LARGE frame is delivered whole and its stream finished",
          "[quic]") {
  constexpr int64_t kControl = 0, kLargeStream = 4;  // the client's first two bidirectional streams
  RecordingSink sink;
  FakeConnection conn;
  // The endpoint is only used to send; this test only receives and asks what to write.
  quic_link::QuicLink link(/*self_rank=*/0, /*world_size=*/2, /*peer=*/1, &sink, nullptr);
  REQUIRE(link.adopt(conn));

  std::vector<uint8_t> payload(300000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7 + 1);
  const uint64_t seq = 0;
  std::vector<uint8_t> stream(sizeof(seq));
  std::memcpy(stream.data(), &seq, sizeof(seq));
  stream.insert(stream.end(), payload.begin(), payload.end());
  // The payload stream, whole and finished, while its LARGE frame is still missing.
  REQUIRE(link.on_stream_data(conn, kLargeStream, stream.data(), stream.size(), /*fin=*/true).ok());
  CHECK_FALSE(sink.msg.begun);

  std::vector<uint8_t> control;
  quic_link::encode_hello(&control, 1, 2);
  const transport::MsgHeader hdr{7, 42, payload.size(), 0};
  quic_link::encode_large(&control, hdr, seq);
  REQUIRE(link.on_stream_data(conn, kControl, control.data(), control.size(), false).ok());

  REQUIRE(sink.msg.begun);
  CHECK(sink.msg.hdr.tag == 42);
  CHECK(sink.msg.data == payload);
  CHECK(sink.abandoned == 0);
  CHECK(conn.closed.empty());

  // First the FIN of exactly that stream (our side of it: the peer gets its stream credit
  // back), then this side's control frames (its HELLO).
  const Offer fin = next_offer(link, conn);
  CHECK(fin.sid == kLargeStream);
  CHECK(fin.fin);
  CHECK(fin.bytes == 0);
  link.on_written(conn, fin.sid, 0, /*fin_taken=*/true);
  const Offer hello = next_offer(link, conn);
  CHECK(hello.sid == kControl);
  CHECK(hello.bytes > 0);
  CHECK_FALSE(hello.fin);
}
