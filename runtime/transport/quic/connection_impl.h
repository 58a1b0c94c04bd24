// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The QUIC connection behind the Connection interface: an ngtcp2_conn, its GnuTLS
// session, and the glue to the endpoint (socket, CID map, timers) and the Application.
// Everything here runs under the endpoint's lock (endpoint.h).
//
// Split by concern: connection_setup.cc (creation, settings, TLS), connection_callbacks.cc
// (ngtcp2 callbacks), connection_io.cc (packets in, packets out, timers),
// connection_streams.cc (the Connection methods), connection_close.cc (every way to end).
#pragma once

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "transport/quic/ack_hold.h"
#include "transport/quic/address.h"
#include "transport/quic/connection.h"
#include "transport/quic/endpoint.h"
#include "transport/tls/tls_context.h"

namespace nexar::quic {

class EndpointImpl;

// Our connection IDs are all this long (the short header does not carry the length).
inline constexpr size_t kCidLen = 16;

ngtcp2_tstamp now_ns();

class ConnectionImpl final : public Connection {
 public:
  ConnectionImpl(EndpointImpl* ep, bool is_server, const Address& remote, Application* app);
  ~ConnectionImpl() override;
  ConnectionImpl(const ConnectionImpl&) = delete;
  ConnectionImpl& operator=(const ConnectionImpl&) = delete;

  // Setup (connection_setup.cc). On failure the caller finishes the connection.
  Status init_client(const std::string& alpn, int expected_rank);
  Status init_server(const ngtcp2_pkt_hd& hd);

  // Connection
  const tls::Identity& peer() const override { return peer_; }
  bool is_server() const override { return is_server_; }
  std::string peer_address() const override { return remote_.to_string(); }
  Application* app() const override { return app_; }
  void set_app(Application* app) override { app_ = app; }
  std::string alpn() const override { return alpn_; }
  Status open_bidi_stream(int64_t* sid) override;
  Status open_uni_stream(int64_t* sid) override;
  void extend_stream_window(int64_t sid, uint64_t n) override;
  void extend_conn_window(uint64_t n) override;
  void shutdown_stream(int64_t sid, uint64_t app_error) override;
  void schedule_write() override;
  void close(uint64_t app_error, const std::string& reason) override;
  void abort(const Status& why) override;

  // Endpoint side (connection_io.cc).
  void on_datagram(const Address& from, const uint8_t* data, size_t len, ngtcp2_tstamp now);
  void on_expiry(ngtcp2_tstamp now);
  void write(ngtcp2_tstamp now);
  // acks false: without a delayed ACK of small datagrams (ack_hold.h) or a held ACK's end,
  // which a blind progress loop leaves to the pollers or its next look (rearm_timer).
  ngtcp2_tstamp expiry(bool acks = true) const;
  const Address& remote() const { return remote_; }

  // Ending (connection_close.cc). finish() calls on_closed; the endpoint then deletes it.
  void finish(const Status& why);
  void close_for_shutdown();             // ~Endpoint: CONNECTION_CLOSE, on_closed(ok)
  void abort_unreachable(int err);       // ICMP error for the peer's address (socket read already)
  bool finished() const { return finished_; }
  std::vector<std::string>& cids() { return cids_; }

  // For the ngtcp2 callbacks (connection_callbacks.cc).
  struct Callbacks;
  bool dirty = false;  // queued on the endpoint's write list
  // Someone other than an arriving datagram wants this connection written (schedule_write).
  bool write_asked_ = false;

 private:
  friend struct Callbacks;

  // A close decided somewhere (callback, app, error) and carried out by write().
  struct CloseRequest {
    ngtcp2_connection_close_error frame;  // reason points into `reason`
    std::string reason;
    Status outcome;
    bool send = true;  // false: drop silently (idle timeout, draining)
  };

  Status init_common(const ngtcp2_cid& dcid, const ngtcp2_cid& scid, const ngtcp2_cid* original_dcid,
                     const std::vector<std::string>& alpns);
  void request_close(CloseRequest req);
  void end_silently(const Status& why);  // a close without a packet to the peer
  void request_liberr_close(int liberr, const char* where);
  void carry_out_close();
  bool close_now();  // carries out a requested close (or leaves it to the loop); true if any
  ngtcp2_tstamp silence_deadline() const;  // UINT64_MAX before the handshake's end
  void on_read_error(int rv);
  Status crypto_failure_status() const;
  bool send_batch(const ngtcp2_path& path, size_t len, size_t segment);
  bool flush_pending();
  ngtcp2_duration ack_delay() const;  // ngtcp2's: min(our max_ack_delay, smoothed RTT / 8)
  bool hold_ack(ngtcp2_tstamp now);   // true: only the delayed-ACK timer was due, now held
  void take_offer(ngtcp2_ssize ndatalen);
  void pull_offer();  // asks the app for its next stream data unless an offer is pending
  void handshake_done();
  std::string who() const;

  EndpointImpl* ep_;
  bool is_server_;
  Address remote_;
  Application* app_;
  ngtcp2_conn* conn_ = nullptr;
  gnutls_session_t session_ = nullptr;
  ngtcp2_crypto_conn_ref conn_ref_{};
  tls::PeerCheck check_;
  tls::Identity peer_;
  std::string alpn_;
  bool connected_ = false;   // on_connected / accept done
  // When the last packet from the peer arrived (from the handshake's end on). Silence past
  // the idle timeout since then ends the connection: ngtcp2's own idle timer also restarts
  // on our first ack-eliciting packet after a receive (RFC 9000 10.1), which let a stopped
  // peer live up to a keep-alive interval longer than NEXAR_PEER_TIMEOUT.
  ngtcp2_tstamp last_rx_ = 0;
  AckHold ack_hold_;                     // NEXAR_QUIC_ACK_HOLD_US (ack_hold.h)
  ngtcp2_duration max_ack_delay_ = 0;    // the max_ack_delay we announce
  bool paced_ = true;                    // path_mtu.h's PacketSizing::paced
  bool finished_ = false;    // on_closed called
  std::optional<CloseRequest> close_;
  std::vector<std::string> cids_;  // every CID of ours in the endpoint's map

  // Streams the app was told about (reset or stop-sending) before ngtcp2 closed them.
  std::unordered_set<int64_t> close_notified_;

  // The app's current offer (re-pulled after each writev_stream).
  static constexpr size_t kMaxVecs = 16;
  struct Offer {
    int64_t sid = -1;
    ngtcp2_vec vecs[kMaxVecs];
    size_t nvecs = 0;
    bool fin = false;
    uint64_t bytes = 0;
  } offer_;
  bool have_offer_ = false;

  // Packets built but refused by the socket (EAGAIN), resent when it is writable.
  std::vector<uint8_t> pending_;
  size_t pending_segment_ = 0;
  std::vector<uint8_t> txbuf_;
};

}  // namespace nexar::quic
