// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Creating a connection: ngtcp2 settings and transport parameters from the endpoint's
// config, the callback table, connection IDs, and the GnuTLS session.
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <sys/random.h>

#include <algorithm>
#include <ctime>

#include "core/log.h"
#include "transport/quic/congestion.h"
#include "transport/quic/connection_callbacks.h"
#include "transport/quic/endpoint_impl.h"
#include "transport/quic/path_mtu.h"

namespace nexar::quic {

ngtcp2_tstamp now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<ngtcp2_tstamp>(ts.tv_sec) * NGTCP2_SECONDS + static_cast<ngtcp2_tstamp>(ts.tv_nsec);
}

void random_bytes(uint8_t* dest, size_t len) {
  while (len > 0) {
    ssize_t n = getrandom(dest, len, 0);
    if (n > 0) {
      dest += n;
      len -= static_cast<size_t>(n);
    }
  }
}

namespace {

ngtcp2_cid random_cid() {
  ngtcp2_cid cid;
  cid.datalen = kCidLen;
  random_bytes(cid.data, kCidLen);
  return cid;
}

ngtcp2_duration seconds(double s) { return static_cast<ngtcp2_duration>(s * 1e9); }

}  // namespace

ConnectionImpl::ConnectionImpl(EndpointImpl* ep, bool is_server, const Address& remote, Application* app)
    : ep_(ep), is_server_(is_server), remote_(remote), app_(app), ack_hold_(ep->config().ack_hold_ns) {
  conn_ref_.get_conn = [](ngtcp2_crypto_conn_ref* ref) {
    return static_cast<ConnectionImpl*>(ref->user_data)->conn_;
  };
  conn_ref_.user_data = this;
}

ConnectionImpl::~ConnectionImpl() {
  if (conn_ != nullptr) ngtcp2_conn_del(conn_);
  if (session_ != nullptr) gnutls_deinit(session_);
}

Status ConnectionImpl::init_client(const std::string& alpn, int expected_rank) {
  check_.expected_rank = expected_rank;
  ngtcp2_cid dcid = random_cid();
  ngtcp2_cid scid = random_cid();
  return init_common(dcid, scid, nullptr, {alpn});
}

Status ConnectionImpl::init_server(const ngtcp2_pkt_hd& hd) {
  check_.expected_rank = tls::PeerCheck::kAnyParty;
  ngtcp2_cid scid = random_cid();
  // Until it learns our CID, the client keeps sending to the DCID it chose.
  ep_->add_cid(hd.dcid.data, hd.dcid.datalen, this);
  return init_common(hd.scid, scid, &hd.dcid, ep_->config().accept_alpns);
}

Status ConnectionImpl::init_common(const ngtcp2_cid& dcid, const ngtcp2_cid& scid, const ngtcp2_cid* original_dcid,
                                   const std::vector<std::string>& alpns) {
  const EndpointConfig& cfg = ep_->config();
  ngtcp2_settings settings;
  ngtcp2_settings_default(&settings);
  settings.initial_ts = now_ns();
  // Datagrams never fragment (the socket sets DF): at most the route's MTU; on a real link
  // ngtcp2 starts at 1200 bytes and its path-MTU discovery probes up to that ceiling.
  const PacketSizing sizing = packet_sizing(route_payload(remote_), cfg.max_udp_payload);
  settings.max_tx_udp_payload_size = sizing.max_udp_payload;
  settings.no_tx_udp_payload_size_shaping = sizing.discover ? 0 : 1;
  settings.no_pmtud = sizing.discover ? 0 : 1;
  paced_ = sizing.paced;
  settings.cc_algo = congestion_algo(cfg.congestion);
  settings.ack_thresh = std::max<size_t>(cfg.ack_thresh, 1);
  settings.max_window = cfg.max_conn_window;
  settings.max_stream_window = cfg.max_stream_window;
  settings.handshake_timeout = std::max(seconds(10), 2 * seconds(cfg.idle_timeout_s));

  ngtcp2_transport_params params;
  ngtcp2_transport_params_default(&params);
  params.initial_max_stream_data_bidi_local = cfg.stream_window;
  params.initial_max_stream_data_bidi_remote = cfg.stream_window;
  params.initial_max_stream_data_uni = cfg.stream_window;
  params.initial_max_data = cfg.conn_window;
  params.initial_max_streams_bidi = cfg.max_streams;
  params.initial_max_streams_uni = cfg.max_streams;
  params.max_idle_timeout = seconds(cfg.idle_timeout_s);
  params.active_connection_id_limit = 4;
  if (original_dcid != nullptr) params.original_dcid = *original_dcid;
  max_ack_delay_ = params.max_ack_delay;

  ngtcp2_path path{{const_cast<sockaddr*>(ep_->socket().local().sa()), ep_->socket().local().len},
                   {const_cast<sockaddr*>(remote_.sa()), remote_.len}};
  const ngtcp2_callbacks* cbs = is_server_ ? &Callbacks::server() : &Callbacks::client();
  int rv = is_server_ ? ngtcp2_conn_server_new(&conn_, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, cbs, &settings,
                                               &params, nullptr, this)
                      : ngtcp2_conn_client_new(&conn_, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, cbs, &settings,
                                               &params, nullptr, this);
  if (rv != 0) return Status(NEXAR_ERR_INTERNAL, std::string("ngtcp2 connection: ") + ngtcp2_strerror(rv));
  ep_->add_cid(scid.data, scid.datalen, this);
  if (cfg.keepalive_s > 0) ngtcp2_conn_set_keep_alive_timeout(conn_, seconds(cfg.keepalive_s));

  NX_RETURN_IF_ERROR(cfg.tls->new_session(is_server_, alpns, &check_, &session_));
  rv = is_server_ ? ngtcp2_crypto_gnutls_configure_server_session(session_)
                  : ngtcp2_crypto_gnutls_configure_client_session(session_);
  if (rv != 0) return Status(NEXAR_ERR_INTERNAL, "configuring GnuTLS for QUIC");
  gnutls_session_set_ptr(session_, &conn_ref_);
  ngtcp2_conn_set_tls_native_handle(conn_, session_);
  txbuf_.resize(UdpSocket::kMaxGsoBytes + settings.max_tx_udp_payload_size);
  NX_TRACE(NET, "QUIC to %s: UDP payload %zu%s, congestion control %s%s", remote_.to_string().c_str(),
           sizing.max_udp_payload, sizing.discover ? " at most (path-MTU discovery from 1200)" : "",
           congestion_algo_name(settings.cc_algo), paced_ ? ", paced" : ", unpaced (loopback)");
  return Status::Ok();
}

std::string ConnectionImpl::who() const {
  std::string s = remote_.to_string();
  if (connected_) s = peer_.to_string() + " at " + s;
  return s;
}

}  // namespace nexar::quic
