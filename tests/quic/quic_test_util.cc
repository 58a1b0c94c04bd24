// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "quic_test_util.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace nexar::quic::test {

Job::Job(int nranks, const std::string& job_id) {
  char tmpl[] = "/tmp/nexar-quic-test-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  parent_ = tmpl;
  Status st = tls::create_job_credentials(parent_ + "/cred", job_id, nranks, &files_);
  if (!st.ok()) throw std::runtime_error(st.to_string());
}

Job::~Job() {
  tls::remove_job_credentials(files_);
  ::rmdir(parent_.c_str());
}

static std::shared_ptr<tls::Context> load(const std::string& f) {
  std::shared_ptr<tls::Context> ctx;
  Status st = tls::Context::load(f, &ctx);
  if (!st.ok()) throw std::runtime_error(st.to_string());
  return ctx;
}

std::shared_ptr<tls::Context> Job::rank(int r) const { return load(files_.rank_files.at(static_cast<size_t>(r))); }
std::shared_ptr<tls::Context> Job::launcher() const { return load(files_.launcher_file); }

std::unique_ptr<Endpoint> make_endpoint(std::shared_ptr<const tls::Context> tls, const EndpointOptions& opt) {
  EndpointConfig cfg;
  cfg.tls = std::move(tls);
  cfg.bind_address = opt.bind;
  cfg.idle_timeout_s = opt.idle_timeout_s;
  cfg.keepalive_s = opt.keepalive_s;
  cfg.congestion = opt.congestion;
  if (opt.server) cfg.accept_alpns = {"nexar/1"};
  std::unique_ptr<Endpoint> ep;
  Status st = Endpoint::create(cfg, &ep);
  if (!st.ok()) throw std::runtime_error(st.to_string());
  return ep;
}

uint64_t fnv1a(uint64_t h, const uint8_t* data, size_t len) {
  for (size_t i = 0; i < len; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v[i] = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

int64_t TestApp::send(Endpoint& ep, const uint8_t* data, uint64_t len, size_t pattern, double timeout_s) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  int64_t sid = -1;
  ep.post([&] {
    int64_t id = -1;
    if (conn_ != nullptr && conn_->open_bidi_stream(&id).ok()) {
      std::lock_guard<std::mutex> l(mu);
      Out& o = out[id];
      o.data = data, o.len = len, o.pattern = pattern;
      conn_->schedule_write();
    }
    std::lock_guard<std::mutex> l(m);
    sid = id, done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(m);
  cv.wait_for(l, std::chrono::duration<double>(timeout_s), [&] { return done; });
  return done ? sid : -1;
}

void TestApp::close(Endpoint& ep, uint64_t app_error, const std::string& reason) {
  ep.post([this, app_error, reason] {
    if (conn_ != nullptr) conn_->close(app_error, reason);
  });
}

bool TestApp::wait(const std::function<bool()>& pred, double timeout_s) {
  std::unique_lock<std::mutex> l(mu);
  return cv_.wait_for(l, std::chrono::duration<double>(timeout_s), pred);
}

void TestApp::on_connected(Connection& conn) {
  std::lock_guard<std::mutex> l(mu);
  conn_ = &conn;
  ++connected;
  peer = conn.peer();
  alpn = conn.alpn();
  cv_.notify_all();
}

Status TestApp::on_stream_data(Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) {
  {
    std::lock_guard<std::mutex> l(mu);
    In& s = in[sid];
    if (pattern_ != nullptr) {
      // Byte i of the stream must be pattern[i % pattern_len_].
      size_t pos = static_cast<size_t>(s.bytes % pattern_len_), off = 0;
      while (off < len) {
        size_t n = std::min(len - off, pattern_len_ - pos);
        if (std::memcmp(data + off, pattern_ + pos, n) != 0) s.pattern_ok = false;
        off += n, pos = 0;
      }
    } else {
      s.hash = fnv1a(s.hash, data, len);
    }
    s.bytes += len;
    s.fin = s.fin || fin;
    ++stream_data_calls;
    if (fin) cv_.notify_all();
    if (fin && reply_fin && !out.count(sid)) {
      out[sid];  // empty: next_write offers just the FIN
      conn.schedule_write();
    }
  }
  conn.extend_stream_window(sid, len);
  conn.extend_conn_window(len);
  return Status::Ok();
}

void TestApp::on_acked(Connection&, int64_t sid, uint64_t datalen) {
  std::lock_guard<std::mutex> l(mu);
  out[sid].acked += datalen;
  if (out[sid].acked >= out[sid].len) cv_.notify_all();
}

void TestApp::on_stream_writable(Connection& conn, int64_t sid) {
  std::lock_guard<std::mutex> l(mu);
  auto it = out.find(sid);
  if (it != out.end()) it->second.blocked = false;
  conn.schedule_write();
}

size_t TestApp::next_write(Connection&, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) {
  std::lock_guard<std::mutex> l(mu);
  for (auto& [id, o] : out) {
    if (o.blocked || o.fin_sent) continue;
    *sid = id;
    size_t n = 0;
    uint64_t pos = o.written;
    while (n < max_vecs && pos < o.len) {
      const uint8_t* base = o.data;
      uint64_t avail = o.len - pos;
      if (o.pattern > 0) {
        size_t p = static_cast<size_t>(pos % o.pattern);
        base += p;
        avail = std::min<uint64_t>(avail, o.pattern - p);
      } else {
        base += pos;
      }
      avail = std::min<uint64_t>(avail, 1u << 30);
      vecs[n].base = const_cast<uint8_t*>(base);
      vecs[n].len = static_cast<size_t>(avail);
      pos += avail;
      ++n;
    }
    *fin = pos == o.len;  // FIN only with the stream's last byte
    return n;
  }
  return 0;
}

void TestApp::on_written(Connection&, int64_t sid, size_t n, bool fin_taken) {
  std::lock_guard<std::mutex> l(mu);
  Out& o = out[sid];
  o.written += n;
  o.fin_sent = o.fin_sent || fin_taken;
}

void TestApp::on_blocked(Connection&, int64_t sid) {
  std::lock_guard<std::mutex> l(mu);
  out[sid].blocked = true;
}

void TestApp::on_closed(Connection&, const Status& why) {
  std::lock_guard<std::mutex> l(mu);
  conn_ = nullptr;
  closed = true;
  close_status = why;
  cv_.notify_all();
}

Server::Server(std::shared_ptr<const tls::Context> tls, const EndpointOptions& opt) {
  ep = make_endpoint(std::move(tls), opt);
  ep->set_accept_handler([this](Connection&) -> Application* {
    std::lock_guard<std::mutex> l(mu);
    apps.push_back(std::make_unique<TestApp>());
    apps.back()->reply_fin = reply_fin;
    return apps.back().get();
  });
}

Server::~Server() { ep.reset(); }

}  // namespace nexar::quic::test
