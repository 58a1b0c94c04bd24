// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The rendezvous client's side of its HTTP/3 connection: sends requests on new
// bidirectional streams (queued until the connection is up or stream credit returns),
// collects each response (:status and body) and completes it; fails every pending and
// later request once the connection is gone. Progress thread only, except where noted.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "rendezvous/h3_session.h"
#include "transport/quic/endpoint.h"

namespace nexar::rendezvous {

struct HttpResult {
  Status status;  // transport outcome; ok() when a response arrived
  int http_status = 0;
  std::string body;
};

class H3ClientApp : public H3Session {
 public:
  using Completion = std::function<void(HttpResult)>;
  // Largest response body accepted (the status document included).
  static constexpr size_t kMaxResponseBody = 16u << 20;

  H3ClientApp(quic::Endpoint* endpoint, std::string address);

  // Set before Endpoint::connect (any thread); run on the progress thread.
  std::function<void()> on_up;                    // HTTP/3 ready
  std::function<void(const Status& why)> on_down;  // the connection is gone
  // Keeps the app alive until on_closed (the endpoint holds a raw pointer). Call before
  // Endpoint::connect; drop_self() if connect fails at once.
  void hold_self(std::shared_ptr<H3ClientApp> self) { self_ = std::move(self); }
  void drop_self() { self_.reset(); }

  // Sends a request; done runs exactly once (unless cancelled), maybe at once. Returns a
  // token for cancel().
  uint64_t send(std::string method, std::string path, std::string body, Completion done);
  // Forgets a request and resets its stream; done will not run.
  void cancel(uint64_t token);
  // Closes the connection (now, or as soon as it is up).
  void close();

  void on_streams_available(quic::Connection& conn) override;
  void on_closed(quic::Connection& conn, const Status& why) override;

 protected:
  void on_started() override;
  void on_header(int64_t sid, std::string_view name, std::string_view value) override;
  void on_body(int64_t sid, const uint8_t* data, size_t len) override;
  void on_message_end(int64_t sid) override;
  void on_message_closed(int64_t sid, uint64_t app_error) override;

 private:
  struct Call {
    std::string method, path, body;
    Completion done;
    int64_t sid = -1;
    int http_status = 0;
    std::string response;
    bool too_large = false;
  };
  void flush();  // opens streams for queued calls while credit lasts
  void finish(uint64_t token, HttpResult result);
  Status lost() const;

  quic::Endpoint* endpoint_;
  std::string address_;
  std::shared_ptr<H3ClientApp> self_;
  bool up_ = false;
  bool gone_ = false;
  bool close_requested_ = false;
  Status gone_why_;
  uint64_t next_token_ = 1;
  std::map<uint64_t, Call> calls_;                // by token, in submission order
  std::unordered_map<int64_t, uint64_t> by_sid_;  // streams of submitted calls
};

}  // namespace nexar::rendezvous
