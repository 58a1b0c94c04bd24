// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One QUIC connection as its Application sees it. See endpoint.h for threading: every
// call here and every Application callback happens under the endpoint's lock (on its
// progress thread, or on a thread inside Endpoint::try_run or Endpoint::poll).
#pragma once

#include <ngtcp2/ngtcp2.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"
#include "transport/tls/credentials.h"

namespace nexar::quic {

class Connection;

// Implemented by the user of a connection. A pull model for writing (which HTTP/3's
// nghttp3 needs): the endpoint asks next_write() for data whenever the connection may send.
class Application {
 public:
  virtual ~Application() = default;

  // Handshake done and the peer's certificate verified: conn.peer() is valid.
  virtual void on_connected(Connection& conn) { (void)conn; }

  // Stream data, in order, for stream sid (opened by either side). Return an error to
  // close the connection with it (NEXAR_ERR_PROTOCOL for malformed data). The data is
  // only valid during the call. The Application must call conn.extend_stream_window and
  // conn.extend_conn_window as it consumes data (at once, or later to apply back-pressure).
  virtual Status on_stream_data(Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) = 0;

  // The peer reset stream sid, or it closed both ways; app_error is the peer's code.
  virtual void on_stream_close(Connection& conn, int64_t sid, uint64_t app_error) {
    (void)conn, (void)sid, (void)app_error;
  }

  // The peer acknowledged `datalen` more bytes of stream sid (in order, cumulative since
  // the last call): the oldest unacknowledged bytes that were handed out by next_write may
  // be released now.
  virtual void on_acked(Connection& conn, int64_t sid, uint64_t datalen) { (void)conn, (void)sid, (void)datalen; }

  // Flow control of stream sid opened up again after on_blocked.
  virtual void on_stream_writable(Connection& conn, int64_t sid) { (void)conn, (void)sid; }

  // More local streams may be opened (after open_*_stream failed for lack of credit).
  virtual void on_streams_available(Connection& conn) { (void)conn; }

  // The next stream data to send: fill up to max_vecs vecs, set *sid and *fin, return the
  // number of vecs used. Return 0 (or 0 vecs with *fin false) when nothing is ready.
  // Vec memory must stay valid and unchanged until on_acked covers it.
  virtual size_t next_write(Connection& conn, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) = 0;

  // ngtcp2 took n bytes (n may be less than offered) of the data next_write offered for
  // sid, plus the FIN if fin_taken. Also called with (0, true) when sid can never be
  // written again (already finished or reset): stop offering it.
  virtual void on_written(Connection& conn, int64_t sid, size_t n, bool fin_taken) = 0;

  // Stream sid is blocked by the peer's flow control: offer it again after on_stream_writable.
  virtual void on_blocked(Connection& conn, int64_t sid) = 0;

  // The connection is gone (closed by either side, idle timeout, handshake failure).
  // The last callback; conn is destroyed after it returns. why is ok() for a clean close
  // initiated locally, else NEXAR_ERR_PEER_LOST, NEXAR_ERR_AUTH, NEXAR_ERR_TIMEOUT or
  // NEXAR_ERR_PROTOCOL with the reason.
  virtual void on_closed(Connection& conn, const Status& why) = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;

  // Identity proven by the peer's certificate (valid from on_connected on).
  virtual const tls::Identity& peer() const = 0;
  virtual bool is_server() const = 0;
  virtual std::string peer_address() const = 0;
  virtual Application* app() const = 0;
  // The ALPN the handshake selected (a server may accept several, e.g. "h3" and "nexar/1").
  virtual std::string alpn() const = 0;
  virtual void set_app(Application* app) = 0;

  // Opens a local stream. NEXAR_ERR_IN_PROGRESS-like failure: returns a Status with code
  // NEXAR_IN_PROGRESS when the peer's stream limit is reached (retry after
  // on_streams_available).
  virtual Status open_bidi_stream(int64_t* sid) = 0;
  virtual Status open_uni_stream(int64_t* sid) = 0;

  // The application consumed n bytes of sid / of the connection: the peer may send more.
  virtual void extend_stream_window(int64_t sid, uint64_t n) = 0;
  virtual void extend_conn_window(uint64_t n) = 0;

  // Resets/stops stream sid both ways with app_error.
  virtual void shutdown_stream(int64_t sid, uint64_t app_error) = 0;

  // The application has new data for next_write: the loop will write soon.
  virtual void schedule_write() = 0;

  // Closes the connection (CONNECTION_CLOSE with app_error and reason); on_closed follows
  // with ok() if app_error == 0, else NEXAR_ERR_PROTOCOL carrying the reason.
  virtual void close(uint64_t app_error, const std::string& reason) = 0;

  // Ends the connection at once without a word to the peer, which is known gone (e.g. its
  // process exited on this host); on_closed follows with why. What the socket holds is
  // read first: datagrams the peer sent before it went still reach the Application.
  virtual void abort(const Status& why) = 0;
};

}  // namespace nexar::quic
