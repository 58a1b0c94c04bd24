// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/h3_session.h"

#include <cstddef>

#include "core/log.h"

namespace nexar::rendezvous {
namespace {

// The QUIC layer's ngtcp2_vec and nghttp3_vec are both {uint8_t* base; size_t len}: the
// vecs next_write hands out are filled by nghttp3 directly.
static_assert(sizeof(ngtcp2_vec) == sizeof(nghttp3_vec));
static_assert(offsetof(ngtcp2_vec, base) == offsetof(nghttp3_vec, base));
static_assert(offsetof(ngtcp2_vec, len) == offsetof(nghttp3_vec, len));

// Header sections larger than this are refused (nghttp3 enforces it).
constexpr uint64_t kMaxFieldSection = 64 * 1024;
// Ordinal of the largest client bidi stream nghttp3 accepts frames about; QUIC's own
// stream limits are the real bound.
constexpr uint64_t kMaxClientStreams = 1ull << 60;

H3Session* self_of(void* p) { return static_cast<H3Session*>(p); }

std::string_view view(nghttp3_rcbuf* buf) {
  nghttp3_vec v = nghttp3_rcbuf_get_buf(buf);
  return {reinterpret_cast<const char*>(v.base), v.len};
}

}  // namespace

H3Session::H3Session(bool is_server) : is_server_(is_server) {}

H3Session::~H3Session() {
  if (h3_) nghttp3_conn_del(h3_);
}

const nghttp3_callbacks& H3Session::callbacks() {
  static const nghttp3_callbacks cbs = [] {
    nghttp3_callbacks c{};
    c.stream_close = cb_stream_close;
    c.recv_data = cb_recv_data;
    c.deferred_consume = cb_deferred_consume;
    c.recv_header = cb_recv_header;
    c.recv_trailer = cb_recv_header;
    c.end_stream = cb_end_stream;
    c.stop_sending = cb_reset_stream;
    c.reset_stream = cb_reset_stream;
    return c;
  }();
  return cbs;
}

Status H3Session::start(quic::Connection& conn) {
  if (h3_ || closed_) return Status::Ok();
  conn_ = &conn;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  settings.max_field_section_size = kMaxFieldSection;
  int rv = is_server_ ? nghttp3_conn_server_new(&h3_, &callbacks(), &settings, nullptr, this)
                      : nghttp3_conn_client_new(&h3_, &callbacks(), &settings, nullptr, this);
  if (rv != 0) {
    h3_ = nullptr;
    conn.close(NGHTTP3_H3_INTERNAL_ERROR, "nghttp3 setup failed");
    return Status(NEXAR_ERR_SYSTEM, strprintf("http3: nghttp3 setup: %s", nghttp3_strerror(rv)));
  }
  if (is_server_) nghttp3_conn_set_max_client_streams_bidi(h3_, kMaxClientStreams);
  int64_t control = -1, qenc = -1, qdec = -1;
  Status st = conn.open_uni_stream(&control);
  if (st.ok()) st = conn.open_uni_stream(&qenc);
  if (st.ok()) st = conn.open_uni_stream(&qdec);
  if (!st.ok()) {
    conn.close(NGHTTP3_H3_INTERNAL_ERROR, "cannot open HTTP/3 control streams");
    return st.with_context("http3: opening the control and QPACK streams");
  }
  rv = nghttp3_conn_bind_control_stream(h3_, control);
  if (rv == 0) rv = nghttp3_conn_bind_qpack_streams(h3_, qenc, qdec);
  if (rv != 0) {
    fail(rv, "binding the control and QPACK streams");
    return Status(NEXAR_ERR_INTERNAL, strprintf("http3: binding streams: %s", nghttp3_strerror(rv)));
  }
  conn.schedule_write();
  on_started();
  return Status::Ok();
}

void H3Session::on_connected(quic::Connection& conn) { (void)start(conn); }

Status H3Session::on_stream_data(quic::Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) {
  if (!h3_) NX_RETURN_IF_ERROR(start(conn));
  if (!live()) return Status::Ok();
  nghttp3_ssize n = nghttp3_conn_read_stream(h3_, sid, data, len, fin ? 1 : 0);
  if (n < 0) {
    return Status(NEXAR_ERR_PROTOCOL, strprintf("http3: stream %lld from %s: %s", static_cast<long long>(sid),
                                                conn.peer_address().c_str(), nghttp3_strerror(static_cast<int>(n))));
  }
  consumed(sid, static_cast<size_t>(n));
  return Status::Ok();
}

void H3Session::consumed(int64_t sid, size_t n) {
  if (!live() || n == 0) return;
  conn_->extend_stream_window(sid, n);
  conn_->extend_conn_window(n);
}

void H3Session::on_stream_close(quic::Connection&, int64_t sid, uint64_t app_error) {
  if (!live()) return;
  int rv = nghttp3_conn_close_stream(h3_, sid, app_error ? app_error : NGHTTP3_H3_NO_ERROR);
  if (rv != 0 && rv != NGHTTP3_ERR_STREAM_NOT_FOUND) fail(rv, "closing a stream");
}

void H3Session::on_acked(quic::Connection&, int64_t sid, uint64_t datalen) {
  if (!live()) return;
  int rv = nghttp3_conn_add_ack_offset(h3_, sid, datalen);
  if (rv != 0) fail(rv, "acknowledged data");
}

void H3Session::on_stream_writable(quic::Connection&, int64_t sid) {
  if (!live()) return;
  int rv = nghttp3_conn_unblock_stream(h3_, sid);
  if (rv != 0 && rv != NGHTTP3_ERR_STREAM_NOT_FOUND) fail(rv, "unblocking a stream");
}

size_t H3Session::next_write(quic::Connection&, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) {
  *fin = false;
  if (!live()) return 0;
  int64_t stream = -1;
  int h3fin = 0;
  nghttp3_ssize n =
      nghttp3_conn_writev_stream(h3_, &stream, &h3fin, reinterpret_cast<nghttp3_vec*>(vecs), max_vecs);
  if (n < 0) {
    fail(static_cast<int>(n), "writing");
    return 0;
  }
  if (stream < 0) return 0;
  *sid = stream;
  *fin = h3fin != 0;
  return static_cast<size_t>(n);
}

void H3Session::on_written(quic::Connection&, int64_t sid, size_t n, bool fin_taken) {
  (void)fin_taken;  // nghttp3 learns of the FIN through the offset (0 bytes for a bare FIN)
  if (!live()) return;
  int rv = nghttp3_conn_add_write_offset(h3_, sid, n);
  if (rv != 0) fail(rv, "write offset");
}

void H3Session::on_blocked(quic::Connection&, int64_t sid) {
  if (live()) nghttp3_conn_block_stream(h3_, sid);
}

Status H3Session::submit(int64_t sid, const HeaderList& headers, std::string body) {
  if (!live()) return Status(NEXAR_ERR_PEER_LOST, "http3: connection closed");
  std::vector<nghttp3_nv> nva;
  nva.reserve(headers.size());
  for (const auto& [name, value] : headers) {
    nva.push_back(nghttp3_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                             reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                             value.size(), NGHTTP3_NV_FLAG_NONE});
  }
  nghttp3_data_reader reader{cb_read_data};
  const nghttp3_data_reader* dr = nullptr;
  if (!body.empty()) {
    auto out = std::make_unique<OutBody>();
    out->data = std::move(body);
    bodies_[sid] = std::move(out);
    dr = &reader;
  }
  int rv = is_server_ ? nghttp3_conn_submit_response(h3_, sid, nva.data(), nva.size(), dr)
                      : nghttp3_conn_submit_request(h3_, sid, nva.data(), nva.size(), dr, nullptr);
  if (rv != 0) {
    bodies_.erase(sid);
    // The stream may have been reset meanwhile: not a connection failure.
    return Status(NEXAR_ERR_PROTOCOL, strprintf("http3: submit on stream %lld: %s", static_cast<long long>(sid),
                                                nghttp3_strerror(rv)));
  }
  conn_->schedule_write();
  return Status::Ok();
}

void H3Session::reset_stream(int64_t sid, uint64_t app_error) {
  if (!live()) return;
  nghttp3_conn_shutdown_stream_write(h3_, sid);
  conn_->shutdown_stream(sid, app_error);
}

void H3Session::fail(int liberr, const char* where) {
  if (!live()) return;
  std::string reason = strprintf("http3 %s: %s", where, nghttp3_strerror(liberr));
  NX_WARN(BOOT, "%s: %s", conn_->peer_address().c_str(), reason.c_str());
  closed_ = true;  // nothing more goes through nghttp3 on this connection
  conn_->close(nghttp3_err_infer_quic_app_error_code(liberr), reason);
}

int H3Session::cb_recv_header(nghttp3_conn*, int64_t sid, int32_t, nghttp3_rcbuf* name, nghttp3_rcbuf* value,
                              uint8_t, void* self, void*) {
  self_of(self)->on_header(sid, view(name), view(value));
  return 0;
}

int H3Session::cb_recv_data(nghttp3_conn*, int64_t sid, const uint8_t* data, size_t len, void* self, void*) {
  H3Session* s = self_of(self);
  s->on_body(sid, data, len);
  s->consumed(sid, len);  // nghttp3 leaves DATA payload credit to the application
  return 0;
}

int H3Session::cb_deferred_consume(nghttp3_conn*, int64_t sid, size_t n, void* self, void*) {
  self_of(self)->consumed(sid, n);
  return 0;
}

int H3Session::cb_end_stream(nghttp3_conn*, int64_t sid, void* self, void*) {
  self_of(self)->on_message_end(sid);
  return 0;
}

int H3Session::cb_stream_close(nghttp3_conn*, int64_t sid, uint64_t app_error, void* self, void*) {
  H3Session* s = self_of(self);
  s->bodies_.erase(sid);
  s->on_message_closed(sid, app_error);
  return 0;
}

int H3Session::cb_reset_stream(nghttp3_conn*, int64_t sid, uint64_t app_error, void* self, void*) {
  H3Session* s = self_of(self);
  if (s->live()) s->conn_->shutdown_stream(sid, app_error);
  return 0;
}

nghttp3_ssize H3Session::cb_read_data(nghttp3_conn*, int64_t sid, nghttp3_vec* vec, size_t veccnt,
                                      uint32_t* flags, void* self, void*) {
  H3Session* s = self_of(self);
  *flags |= NGHTTP3_DATA_FLAG_EOF;
  auto it = s->bodies_.find(sid);
  if (it == s->bodies_.end() || it->second->handed_out || veccnt == 0) return 0;
  it->second->handed_out = true;
  vec[0].base = reinterpret_cast<uint8_t*>(it->second->data.data());
  vec[0].len = it->second->data.size();
  return 1;
}

}  // namespace nexar::rendezvous
