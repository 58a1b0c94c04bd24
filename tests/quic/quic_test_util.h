// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Shared pieces of the QUIC tests: a job's credentials in a temporary directory, endpoint
// construction, and TestApp, an Application that sends and checks streams and records
// what happened so the test thread can wait for it (with timeouts).
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "transport/quic/endpoint.h"
#include "transport/tls/credentials.h"
#include "transport/tls/tls_context.h"

namespace nexar::quic::test {

// A fresh job: credentials for nranks ranks and the launcher in a private temp dir.
class Job {
 public:
  explicit Job(int nranks, const std::string& job_id = "job-test");
  ~Job();
  std::shared_ptr<tls::Context> rank(int r) const;
  std::shared_ptr<tls::Context> launcher() const;
  const tls::JobCredentialFiles& files() const { return files_; }
  const std::string& parent_dir() const { return parent_; }

 private:
  std::string parent_;
  tls::JobCredentialFiles files_;
};

struct EndpointOptions {
  bool server = true;
  std::string bind = "127.0.0.1";
  double idle_timeout_s = 5;
  double keepalive_s = 1;
  std::string congestion = "cubic";  // NEXAR_QUIC_CC
};
std::unique_ptr<Endpoint> make_endpoint(std::shared_ptr<const tls::Context> tls, const EndpointOptions& opt = {});

uint64_t fnv1a(uint64_t h, const uint8_t* data, size_t len);
inline constexpr uint64_t kFnvBasis = 1469598103934665603ull;

// Bytes 0..n-1 of a deterministic pseudo-random sequence.
std::vector<uint8_t> random_bytes(size_t n, uint64_t seed);

class TestApp : public Application {
 public:
  struct In {
    uint64_t bytes = 0;
    uint64_t hash = kFnvBasis;
    bool fin = false;
    bool pattern_ok = true;
  };
  struct Out {
    const uint8_t* data = nullptr;  // len bytes, or a pattern of `pattern` bytes repeated
    uint64_t len = 0;
    size_t pattern = 0;
    uint64_t written = 0;
    uint64_t acked = 0;
    bool fin_sent = false;
    bool blocked = false;
  };

  // Receive side: hash every stream (default), or only check it against a repeated pattern.
  void check_pattern(const uint8_t* pattern, size_t len) { pattern_ = pattern, pattern_len_ = len; }
  // Answer a FIN on a peer's bidi stream with an empty FIN, so the stream ends both ways.
  bool reply_fin = false;

  // Test thread: opens a bidi stream on the (single) connection and sends len bytes of data
  // (or of the repeated pattern when pattern > 0) with FIN. Returns the stream id or -1.
  int64_t send(Endpoint& ep, const uint8_t* data, uint64_t len, size_t pattern = 0, double timeout_s = 10);
  // Test thread: closes the connection.
  void close(Endpoint& ep, uint64_t app_error = 0, const std::string& reason = "test done");

  // Waits (at most timeout_s) until pred() holds; pred runs under the lock.
  bool wait(const std::function<bool()>& pred, double timeout_s);

  // Read under the lock (or after wait()).
  int connected = 0;
  bool closed = false;
  Status close_status;
  tls::Identity peer;
  std::string alpn;
  std::map<int64_t, In> in;
  std::map<int64_t, Out> out;
  uint64_t stream_data_calls = 0;
  std::mutex mu;

  // Application
  void on_connected(Connection& conn) override;
  Status on_stream_data(Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) override;
  void on_acked(Connection& conn, int64_t sid, uint64_t datalen) override;
  void on_stream_writable(Connection& conn, int64_t sid) override;
  size_t next_write(Connection& conn, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) override;
  void on_written(Connection& conn, int64_t sid, size_t n, bool fin_taken) override;
  void on_blocked(Connection& conn, int64_t sid) override;
  void on_closed(Connection& conn, const Status& why) override;

 private:
  std::condition_variable cv_;
  Connection* conn_ = nullptr;  // progress thread only
  const uint8_t* pattern_ = nullptr;
  size_t pattern_len_ = 0;
};

// A server: accepts every verified client into one TestApp per connection.
struct Server {
  explicit Server(std::shared_ptr<const tls::Context> tls, const EndpointOptions& opt = {});
  ~Server();
  std::unique_ptr<Endpoint> ep;
  std::mutex mu;
  std::vector<std::unique_ptr<TestApp>> apps;  // one per accepted connection
  bool reply_fin = false;                      // given to new apps
  int accepted() {
    std::lock_guard<std::mutex> l(mu);
    return static_cast<int>(apps.size());
  }
  TestApp* app(size_t i) {
    std::lock_guard<std::mutex> l(mu);
    return i < apps.size() ? apps[i].get() : nullptr;
  }
};

}  // namespace nexar::quic::test
