// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A knock (NEXAR_CONNECT=lazy): a QUIC connection a lower rank opens to a higher one only
// to ask it to dial back; it carries no stream. The higher rank holds it open until its own
// connection to the knocker is up, then closes it: a knocker whose knock ends while it has
// no connection from the peer knows that peer cannot connect (it failed or is gone), so a
// first use never waits longer than one handshake for the answer.
#pragma once

#include "transport/quic/connection.h"

namespace nexar::quic_link {

class QuicLink;

class Knock final : public quic::Application {
 public:
  explicit Knock(QuicLink* link) : link_(link) {}

  void on_connected(quic::Connection& conn) override;
  Status on_stream_data(quic::Connection&, int64_t, const uint8_t*, size_t, bool) override {
    return Status(NEXAR_ERR_PROTOCOL, "data on a knock");
  }
  size_t next_write(quic::Connection&, int64_t*, ngtcp2_vec*, size_t, bool*) override { return 0; }
  void on_written(quic::Connection&, int64_t, size_t, bool) override {}
  void on_blocked(quic::Connection&, int64_t) override {}
  void on_closed(quic::Connection& conn, const Status& why) override;

 private:
  QuicLink* const link_;
};

}  // namespace nexar::quic_link
