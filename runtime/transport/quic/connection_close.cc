// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Every way a connection ends, and the Status the Application sees in on_closed:
//   local close() / ~Endpoint          -> ok() (app_error 0) or PROTOCOL with the reason
//   CONNECTION_CLOSE from the peer     -> PEER_LOST "closed by peer" (AUTH for a TLS alert,
//                                         PROTOCOL when the peer reported an error)
//   idle timeout                       -> PEER_LOST (TIMEOUT before the handshake completed)
//   ICMP unreachable                   -> PEER_LOST, after what the socket held was read
//   abort(why) (the peer is known gone) -> why, after what the socket held was read
//   certificate refused (either side)  -> AUTH with the reason
#include <cstring>

#include "core/log.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {
namespace {

Status closed_by_peer(const ngtcp2_connection_close_error& e) {
  std::string reason(reinterpret_cast<const char*>(e.reason), e.reasonlen);
  std::string suffix = reason.empty() ? "" : ": " + reason;
  bool app = e.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION;
  if (!app && e.error_code >= NGTCP2_CRYPTO_ERROR && e.error_code < NGTCP2_CRYPTO_ERROR + 0x100)
    return Status(NEXAR_ERR_AUTH, strprintf("peer refused the TLS handshake (alert %u)",
                                            static_cast<unsigned>(e.error_code - NGTCP2_CRYPTO_ERROR)) + suffix);
  if (!app && e.error_code == NGTCP2_CONNECTION_REFUSED) return Status(NEXAR_ERR_AUTH, "peer refused the connection" + suffix);
  if (e.error_code == 0) return Status(NEXAR_ERR_PEER_LOST, "closed by peer" + suffix);
  return Status(NEXAR_ERR_PROTOCOL, strprintf("closed by peer with %s error 0x%llx", app ? "application" : "transport",
                                              static_cast<unsigned long long>(e.error_code)) + suffix);
}

}  // namespace

void ConnectionImpl::close(uint64_t app_error, const std::string& reason) {
  if (finished_ || close_) return;
  CloseRequest req;
  req.reason = reason;
  req.outcome = app_error == 0 ? Status::Ok() : Status(NEXAR_ERR_PROTOCOL, reason);
  ngtcp2_connection_close_error_set_application_error(&req.frame, app_error, nullptr, 0);
  request_close(std::move(req));
}

void ConnectionImpl::request_close(CloseRequest req) {
  if (finished_ || close_) return;
  close_ = std::move(req);
  // The frame's reason points into the request's own string.
  close_->frame.reason = reinterpret_cast<uint8_t*>(close_->reason.data());
  close_->frame.reasonlen = close_->reason.size();
  ep_->mark_dirty(this);
}

void ConnectionImpl::request_liberr_close(int liberr, const char* where) {
  CloseRequest req;
  req.reason = std::string(where) + ": " + ngtcp2_strerror(liberr);
  req.outcome = Status(NEXAR_ERR_PROTOCOL, "QUIC connection with " + who() + " failed: " + req.reason);
  req.send = liberr != NGTCP2_ERR_DROP_CONN;
  ngtcp2_connection_close_error_set_transport_error_liberr(&req.frame, liberr, nullptr, 0);
  request_close(std::move(req));
}

Status ConnectionImpl::crypto_failure_status() const {
  if (!check_.failure.empty()) return Status(NEXAR_ERR_AUTH, "refused " + remote_.to_string() + ": " + check_.failure);
  return Status(NEXAR_ERR_AUTH, strprintf("TLS handshake with %s failed (alert %u)", remote_.to_string().c_str(),
                                          static_cast<unsigned>(ngtcp2_conn_get_tls_alert(conn_))));
}

void ConnectionImpl::on_read_error(int rv) {
  if (close_) return;  // decided in a callback
  if (rv == NGTCP2_ERR_DRAINING) {
    ngtcp2_connection_close_error e;
    ngtcp2_conn_get_connection_close_error(conn_, &e);
    request_close({ngtcp2_connection_close_error{}, {}, closed_by_peer(e), false});
    return;
  }
  if (rv == NGTCP2_ERR_CRYPTO) {
    CloseRequest req;
    req.outcome = crypto_failure_status();
    ngtcp2_connection_close_error_set_transport_error_tls_alert(&req.frame, ngtcp2_conn_get_tls_alert(conn_), nullptr, 0);
    request_close(std::move(req));
    return;
  }
  request_liberr_close(rv, "reading a packet");
}

void ConnectionImpl::carry_out_close() {
  if (finished_ || !close_) return;
  if (close_->send && conn_ != nullptr && !ngtcp2_conn_is_in_draining_period(conn_)) {
    ngtcp2_path_storage ps;
    ngtcp2_path_storage_zero(&ps);
    ngtcp2_pkt_info pi{};
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(conn_, &ps.path, &pi, txbuf_.data(), txbuf_.size(),
                                                        &close_->frame, now_ns());
    if (n > 0) {
      pending_.clear();
      send_batch(ps.path, static_cast<size_t>(n), static_cast<size_t>(n));
    }
  }
  finish(close_->outcome);
}

void ConnectionImpl::finish(const Status& why) {
  if (finished_) return;
  finished_ = true;
  if (conn_ != nullptr) {  // what congestion control and the RTT estimate ended at (tuning)
    ngtcp2_conn_stat cs;
    ngtcp2_conn_get_conn_stat(conn_, &cs);
    NX_TRACE(NET, "connection with %s: cwnd %llu ssthresh %llu srtt %.1f us min_rtt %.1f us pto_count %zu packets %zu bytes",
             who().c_str(), static_cast<unsigned long long>(cs.cwnd), static_cast<unsigned long long>(cs.ssthresh),
             static_cast<double>(cs.smoothed_rtt) / 1e3, static_cast<double>(cs.min_rtt) / 1e3, cs.pto_count,
             ngtcp2_conn_get_path_max_tx_udp_payload_size(conn_));
  }
  if (why.code() == NEXAR_ERR_AUTH)
    NX_WARN(NET, "refused connection %s %s: %s", is_server_ ? "from" : "to", remote_.to_string().c_str(),
            why.message().c_str());
  else if (!why.ok())
    NX_INFO(NET, "connection with %s closed: %s", who().c_str(), why.to_string().c_str());
  else
    NX_TRACE(NET, "connection with %s closed", who().c_str());
  // A server connection nobody accepted has no Application to tell.
  if (app_ != nullptr) app_->on_closed(*this, why);
  app_ = nullptr;
  ep_->mark_dirty(this);  // the endpoint reaps it after this round
  if (ep_->direct()) ep_->need_loop();
}

void ConnectionImpl::close_for_shutdown() {
  if (finished_) return;
  if (!close_) {
    CloseRequest req;
    req.reason = "endpoint closed";
    ngtcp2_connection_close_error_set_application_error(&req.frame, 0, nullptr, 0);
    request_close(std::move(req));
  }
  carry_out_close();
}

void ConnectionImpl::abort(const Status& why) {
  if (finished_ || close_) return;
  // What the peer sent before it went may sit in the socket still (a same-host peer's last
  // messages, then its exit, seen before the loop read them): read first, then end. What
  // was read may have ended the connection already (the peer's own close).
  ep_->read_queued();
  end_silently(why);
}

void ConnectionImpl::end_silently(const Status& why) {
  if (finished_ || close_) return;
  request_close({ngtcp2_connection_close_error{}, {}, why, false});
}

void ConnectionImpl::abort_unreachable(int err) {
  // Called while the endpoint walks its connections, after it read what the socket held
  // (EndpointImpl::end_unreachable): no read here (it may add a connection).
  end_silently(connected_ ? Status(NEXAR_ERR_PEER_LOST, "peer " + who() + " is unreachable: " + std::strerror(err))
                          : Status(NEXAR_ERR_PEER_LOST, "no QUIC server at " + who() + ": " + std::strerror(err)));
}

}  // namespace nexar::quic
