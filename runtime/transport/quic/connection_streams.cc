// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The Connection methods an Application calls, and the handshake's hand-over to it.
#include "core/log.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {

void ConnectionImpl::handshake_done() {
  Status st = ep_->config().tls->peer_identity(session_, &peer_);
  if (!st.ok()) {  // the verify function already passed; this is a safety net
    request_close({ngtcp2_connection_close_error{}, {}, st, true});
    return;
  }
  alpn_ = tls::Context::selected_alpn(session_);
  connected_ = true;
  last_rx_ = now_ns();
  NX_INFO(NET, "QUIC connection %s %s established (%s, alpn %s)", is_server_ ? "from" : "to", peer_.to_string().c_str(),
          remote_.to_string().c_str(), alpn_.c_str());
  if (is_server_) {
    app_ = ep_->accept(*this);
    if (app_ == nullptr) {
      CloseRequest req;
      req.reason = "not accepted";
      req.outcome = Status(NEXAR_ERR_AUTH, "accept handler refused " + who());
      ngtcp2_connection_close_error_set_transport_error(&req.frame, NGTCP2_CONNECTION_REFUSED, nullptr, 0);
      request_close(std::move(req));
      return;
    }
  }
  if (app_ != nullptr) {
    app_->on_connected(*this);
  }
  schedule_write();
}

Status ConnectionImpl::open_bidi_stream(int64_t* sid) {
  if (finished_ || close_ || !connected_) return Status(NEXAR_ERR_PEER_LOST, "connection to " + who() + " is closed");
  int rv = ngtcp2_conn_open_bidi_stream(conn_, sid, nullptr);
  if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return Status(NEXAR_IN_PROGRESS, "stream limit of " + who() + " reached");
  if (rv != 0) return Status(NEXAR_ERR_INTERNAL, std::string("opening a stream: ") + ngtcp2_strerror(rv));
  return Status::Ok();
}

Status ConnectionImpl::open_uni_stream(int64_t* sid) {
  if (finished_ || close_ || !connected_) return Status(NEXAR_ERR_PEER_LOST, "connection to " + who() + " is closed");
  int rv = ngtcp2_conn_open_uni_stream(conn_, sid, nullptr);
  if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return Status(NEXAR_IN_PROGRESS, "stream limit of " + who() + " reached");
  if (rv != 0) return Status(NEXAR_ERR_INTERNAL, std::string("opening a stream: ") + ngtcp2_strerror(rv));
  return Status::Ok();
}

void ConnectionImpl::extend_stream_window(int64_t sid, uint64_t n) {
  if (finished_ || n == 0) return;
  ngtcp2_conn_extend_max_stream_offset(conn_, sid, n);
  ep_->mark_dirty(this);  // credit may ride with a held ACK (ack_hold.h)
}

void ConnectionImpl::extend_conn_window(uint64_t n) {
  if (finished_ || n == 0) return;
  ngtcp2_conn_extend_max_offset(conn_, n);
  ep_->mark_dirty(this);
}

void ConnectionImpl::shutdown_stream(int64_t sid, uint64_t app_error) {
  if (finished_) return;
  ngtcp2_conn_shutdown_stream(conn_, sid, app_error);
  schedule_write();
}

void ConnectionImpl::schedule_write() {
  write_asked_ = true;
  ep_->mark_dirty(this);
}

}  // namespace nexar::quic
