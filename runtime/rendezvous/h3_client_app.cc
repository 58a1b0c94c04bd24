// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/h3_client_app.h"

#include "core/log.h"

namespace nexar::rendezvous {

H3ClientApp::H3ClientApp(quic::Endpoint* endpoint, std::string address)
    : H3Session(/*is_server=*/false), endpoint_(endpoint), address_(std::move(address)) {}

Status H3ClientApp::lost() const {
  std::string why = gone_why_.ok() ? "connection closed by this client" : gone_why_.to_string();
  return Status(NEXAR_ERR_PEER_LOST, "rendezvous at " + address_ + ": connection lost: " + why);
}

uint64_t H3ClientApp::send(std::string method, std::string path, std::string body, Completion done) {
  uint64_t token = next_token_++;
  if (gone_) {
    done(HttpResult{lost(), 0, {}});
    return token;
  }
  Call& c = calls_[token];
  c.method = std::move(method);
  c.path = std::move(path);
  c.body = std::move(body);
  c.done = std::move(done);
  flush();
  return token;
}

void H3ClientApp::flush() {
  quic::Connection* c = conn();
  if (!up_ || !c) return;
  for (auto it = calls_.begin(); it != calls_.end();) {
    uint64_t token = it->first;
    Call& call = it->second;
    ++it;  // finish() below erases the current entry
    if (call.sid >= 0) continue;
    int64_t sid = -1;
    Status st = c->open_bidi_stream(&sid);
    if (st.code() == NEXAR_IN_PROGRESS) return;  // no stream credit: on_streams_available
    if (!st.ok()) {
      finish(token, HttpResult{st.with_context("rendezvous at " + address_), 0, {}});
      continue;
    }
    call.sid = sid;
    by_sid_[sid] = token;
    HeaderList headers = {{":method", call.method},
                          {":scheme", "https"},
                          {":authority", address_},
                          {":path", call.path},
                          {"content-length", std::to_string(call.body.size())}};
    NX_TRACE(BOOT, "rendezvous client: %s %s on stream %lld", call.method.c_str(), call.path.c_str(),
             static_cast<long long>(sid));
    st = submit(sid, headers, std::move(call.body));
    if (!st.ok()) {
      reset_stream(sid, NGHTTP3_H3_INTERNAL_ERROR);
      finish(token, HttpResult{st.with_context("rendezvous at " + address_), 0, {}});
    }
  }
}

void H3ClientApp::finish(uint64_t token, HttpResult result) {
  auto it = calls_.find(token);
  if (it == calls_.end()) return;
  Completion done = std::move(it->second.done);
  if (it->second.sid >= 0) by_sid_.erase(it->second.sid);
  calls_.erase(it);
  done(std::move(result));
}

void H3ClientApp::cancel(uint64_t token) {
  auto it = calls_.find(token);
  if (it == calls_.end()) return;
  int64_t sid = it->second.sid;
  if (sid >= 0) by_sid_.erase(sid);
  calls_.erase(it);
  if (sid >= 0) reset_stream(sid, NGHTTP3_H3_REQUEST_CANCELLED);
}

void H3ClientApp::close() {
  if (quic::Connection* c = conn()) {
    c->close(0, "rendezvous client done");
  } else {
    close_requested_ = true;
  }
}

void H3ClientApp::on_started() {
  if (close_requested_) {
    conn()->close(0, "rendezvous client done");
    return;
  }
  up_ = true;
  if (on_up) on_up();
  flush();
}

void H3ClientApp::on_streams_available(quic::Connection&) { flush(); }

void H3ClientApp::on_header(int64_t sid, std::string_view name, std::string_view value) {
  auto it = by_sid_.find(sid);
  if (it == by_sid_.end() || name != ":status") return;
  int status = 0;
  for (char ch : value) status = (ch >= '0' && ch <= '9' && status < 1000) ? status * 10 + (ch - '0') : 1000;
  calls_[it->second].http_status = status;
}

void H3ClientApp::on_body(int64_t sid, const uint8_t* data, size_t len) {
  auto it = by_sid_.find(sid);
  if (it == by_sid_.end()) return;
  Call& call = calls_[it->second];
  if (call.response.size() + len > kMaxResponseBody) {
    call.too_large = true;
    return;
  }
  call.response.append(reinterpret_cast<const char*>(data), len);
}

void H3ClientApp::on_message_end(int64_t sid) {
  auto it = by_sid_.find(sid);
  if (it == by_sid_.end()) return;
  uint64_t token = it->second;
  Call& call = calls_[token];
  HttpResult r;
  if (call.too_large) {
    r.status = Status(NEXAR_ERR_PROTOCOL, strprintf("rendezvous at %s: response to %s exceeds %zu bytes",
                                                    address_.c_str(), call.path.c_str(), kMaxResponseBody));
  } else if (call.http_status < 100 || call.http_status > 599) {
    r.status = Status(NEXAR_ERR_PROTOCOL, strprintf("rendezvous at %s: response to %s has no valid :status",
                                                    address_.c_str(), call.path.c_str()));
  }
  r.http_status = call.http_status;
  r.body = std::move(call.response);
  finish(token, std::move(r));
}

void H3ClientApp::on_message_closed(int64_t sid, uint64_t app_error) {
  auto it = by_sid_.find(sid);
  if (it == by_sid_.end()) return;  // answered already
  finish(it->second, HttpResult{Status(NEXAR_ERR_PROTOCOL,
                                       strprintf("rendezvous at %s: stream %lld reset before the response "
                                                 "(HTTP/3 error 0x%llx)",
                                                 address_.c_str(), static_cast<long long>(sid),
                                                 static_cast<unsigned long long>(app_error))),
                                0,
                                {}});
}

void H3ClientApp::on_closed(quic::Connection&, const Status& why) {
  mark_closed();
  gone_ = true;
  gone_why_ = why;
  NX_INFO(BOOT, "rendezvous client: connection to %s closed (%s)", address_.c_str(),
          why.ok() ? "locally" : why.to_string().c_str());
  while (!calls_.empty()) finish(calls_.begin()->first, HttpResult{lost(), 0, {}});
  if (on_down) on_down(why);
  // Last: the endpoint may run (or drop) the task at once, freeing this app.
  endpoint_->post([keep = std::move(self_)] {});
}

}  // namespace nexar::rendezvous
