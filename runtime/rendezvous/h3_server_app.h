// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The rendezvous server's side of one HTTP/3 connection: collects each request (method,
// :path, body up to the value limit), validates it, hands it to the Service and sends
// the response; cancels a pending long-poll when its stream or connection goes away.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>

#include "rendezvous/h3_session.h"
#include "rendezvous/service.h"

namespace nexar::rendezvous {

class H3ServerApp : public H3Session {
 public:
  // on_gone runs last in on_closed; the owner may then destroy the app (not from inside
  // the call: a QUIC callback is still on the stack).
  H3ServerApp(Service* service, std::string peer, std::function<void(H3ServerApp*)> on_gone);

  void on_closed(quic::Connection& conn, const Status& why) override;
  const std::string& peer() const { return peer_; }

 protected:
  void on_header(int64_t sid, std::string_view name, std::string_view value) override;
  void on_body(int64_t sid, const uint8_t* data, size_t len) override;
  void on_message_end(int64_t sid) override;
  void on_message_closed(int64_t sid, uint64_t app_error) override;

 private:
  struct Exchange {
    std::string method;
    std::string path;
    std::string body;
    bool overflow = false;  // body longer than kMaxValueSize: the excess was dropped
    bool answered = false;
    KvStore::WaitId wait = 0;
  };
  void respond(int64_t sid, const Response& r);

  Service* service_;
  std::string peer_;
  std::function<void(H3ServerApp*)> on_gone_;
  std::unordered_map<int64_t, Exchange> exchanges_;
};

}  // namespace nexar::rendezvous
