// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/h3_server_app.h"

#include "core/log.h"

namespace nexar::rendezvous {

H3ServerApp::H3ServerApp(Service* service, std::string peer, std::function<void(H3ServerApp*)> on_gone)
    : H3Session(/*is_server=*/true), service_(service), peer_(std::move(peer)), on_gone_(std::move(on_gone)) {}

void H3ServerApp::on_header(int64_t sid, std::string_view name, std::string_view value) {
  Exchange& x = exchanges_[sid];
  if (name == ":method") x.method = value;
  if (name == ":path") x.path = value;
}

void H3ServerApp::on_body(int64_t sid, const uint8_t* data, size_t len) {
  Exchange& x = exchanges_[sid];
  size_t room = kMaxValueSize - x.body.size();
  if (len > room) {
    x.overflow = true;
    len = room;  // keep consuming (flow credit is returned) but stop buffering
  }
  x.body.append(reinterpret_cast<const char*>(data), len);
}

void H3ServerApp::on_message_end(int64_t sid) {
  Exchange& x = exchanges_[sid];
  if (x.answered || x.wait) return;
  Request req;
  Status st = parse_request(x.method, x.path, x.body, x.overflow, &req);
  x.body.clear();
  x.body.shrink_to_fit();
  if (!st.ok()) {
    NX_TRACE(BOOT, "rendezvous: %s: bad request %s %s: %s", peer_.c_str(), x.method.c_str(), x.path.c_str(),
             st.message().c_str());
    respond(sid, bad_request(st.message()));
    return;
  }
  KvStore::WaitId id = service_->handle(req, [this, sid](const Response& r) { respond(sid, r); });
  // handle() may have answered already (then id is 0); a wait answers later.
  if (id != 0) exchanges_[sid].wait = id;
}

void H3ServerApp::respond(int64_t sid, const Response& r) {
  auto it = exchanges_.find(sid);
  if (it == exchanges_.end() || it->second.answered) return;
  it->second.answered = true;
  it->second.wait = 0;
  HeaderList headers = {{":status", std::to_string(r.status)}, {"content-type", r.content_type}};
  // RFC 9110: no Content-Length on a 204.
  if (r.status != 204) headers.emplace_back("content-length", std::to_string(r.body.size()));
  Status st = submit(sid, headers, r.body);
  if (!st.ok()) NX_TRACE(BOOT, "rendezvous: %s: response dropped: %s", peer_.c_str(), st.message().c_str());
}

void H3ServerApp::on_message_closed(int64_t sid, uint64_t app_error) {
  auto it = exchanges_.find(sid);
  if (it == exchanges_.end()) return;
  if (it->second.wait) {
    NX_TRACE(BOOT, "rendezvous: %s: wait on stream %lld abandoned (error 0x%llx)", peer_.c_str(),
             static_cast<long long>(sid), static_cast<unsigned long long>(app_error));
    service_->cancel(it->second.wait);
  }
  exchanges_.erase(it);
}

void H3ServerApp::on_closed(quic::Connection&, const Status& why) {
  mark_closed();
  for (auto& [sid, x] : exchanges_) {
    if (x.wait) service_->cancel(x.wait);
  }
  exchanges_.clear();
  NX_INFO(BOOT, "rendezvous: client %s disconnected (%s)", peer_.c_str(),
          why.ok() ? "closed" : why.to_string().c_str());
  service_->client_disconnected();
  if (on_gone_) on_gone_(this);
}

}  // namespace nexar::rendezvous
