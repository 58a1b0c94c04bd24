// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A QUIC endpoint: one UDP socket, one progress thread, many connections found by
// connection ID. Connections carry byte streams to an Application (the nexar message
// layer, or HTTP/3 for the rendezvous); the endpoint does the I/O, TLS, timers, GSO/GRO.
//
// Threading: every Application callback and every Connection method runs under the
// endpoint's lock: on the progress thread (which holds it except while it sleeps), or on
// a thread inside try_run (a sender writing its own packets) or poll() (a waiting thread
// reading the socket itself). Other threads reach it through post(), try_run() or poll().
// Connection closes (Application::on_closed) always run on the progress thread.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "transport/quic/connection.h"
#include "transport/tls/tls_context.h"

namespace nexar::quic {

struct EndpointConfig {
  std::shared_ptr<const tls::Context> tls;
  std::string bind_address = "127.0.0.1";  // IPv4 or IPv6 literal
  uint16_t port = 0;                        // 0: ephemeral
  uint16_t port_max = 0;                    // > port: try port..port_max in order (NEXAR_PORT_RANGE)
  // ALPNs a server accepts (e.g. {"nexar/1"} for ranks, {"h3"} for the rendezvous).
  std::vector<std::string> accept_alpns;
  double idle_timeout_s = 5;   // silence after which a connection is dead (NEXAR_PEER_TIMEOUT)
  double keepalive_s = 1;      // PING interval on idle connections (NEXAR_KEEPALIVE)
  // 0: each connection's route and path-MTU discovery decide (path_mtu.h); else a fixed
  // UDP payload within the route's MTU (NEXAR_QUIC_PACKET_SIZE).
  size_t max_udp_payload = 0;
  size_t ack_thresh = 8;           // NEXAR_QUIC_ACK_THRESH
  uint64_t ack_hold_ns = 0;        // NEXAR_QUIC_ACK_HOLD_US (ack_hold.h); 0: ngtcp2's ACK timing
  std::string congestion = "cubic";  // NEXAR_QUIC_CC (congestion.h)
  uint64_t stream_window = 16u << 20;      // initial per-stream receive window
  uint64_t max_stream_window = 64u << 20;  // auto-tuning ceiling
  uint64_t conn_window = 64u << 20;
  uint64_t max_conn_window = 256u << 20;
  uint64_t max_streams = 1024;             // concurrent streams a peer may open, each kind
};

// What the peer of a client connection must prove to be.
struct ExpectedPeer {
  int rank = tls::kLauncherRank;  // kLauncherRank: the rendezvous
};

class Endpoint {
 public:
  // Binds the socket (GRO on, GSO if available) and starts the progress thread.
  static Status create(const EndpointConfig& config, std::unique_ptr<Endpoint>* out);
  // Closes every connection (CONNECTION_CLOSE sent, Application::on_closed called),
  // then stops the thread. Safe to call from any thread but the progress thread.
  virtual ~Endpoint() = default;

  // The bound address, e.g. "127.0.0.1:40123" / "[::1]:40123".
  virtual std::string local_address() const = 0;
  virtual uint16_t local_port() const = 0;

  // Server side. Called under the endpoint's lock after a client's handshake completed and
  // its certificate verified (conn.peer() is set). Return the Application that will own
  // the connection's streams, or nullptr to refuse it (closed with an error). The
  // returned Application then gets on_connected(conn) like a client's does.
  // Unverified clients never reach this (closed during the handshake).
  using AcceptHandler = std::function<Application*(Connection& conn)>;
  virtual void set_accept_handler(AcceptHandler handler) = 0;

  // Client side. Starts a connection to address ("host:port", IP literals only) with alpn.
  // Thread-safe. Later, under the endpoint's lock, app gets on_connected(conn) once the
  // handshake completed and the server proved to be `expect`, or on_closed(conn, error):
  // NEXAR_ERR_AUTH (bad certificate), NEXAR_ERR_TIMEOUT / NEXAR_ERR_PEER_LOST (no answer).
  // app must outlive the connection (until on_closed returned).
  virtual Status connect(const std::string& address, const std::string& alpn, ExpectedPeer expect,
                         Application* app) = 0;

  // Runs fn on the progress thread, soon. Thread-safe; wakes the loop.
  virtual void post(std::function<void()> fn) = 0;
  // Runs fn(arg) at once on the calling thread when no other thread holds the endpoint's
  // lock (waiting a few microseconds for it), then writes the packets it scheduled, and
  // returns true: a sender's packets leave without waking the progress thread. False when
  // the lock stayed busy: fn did not run; post() it instead. Called from inside a callback
  // (the lock already held by this thread), fn runs at once and its packets leave when
  // the callback's caller writes. Thread-safe.
  virtual bool try_run(void (*fn)(void*), void* arg) = 0;
  // The progress thread's work, done by the calling thread if no other thread is doing it
  // (a try-lock, never a wait): receives the queued datagrams, feeds them through the
  // connections (Application callbacks run on this thread), services due timers, writes
  // what became due. Returns the number of datagrams received. For threads that wait for
  // a message (p2p::Waiter): the datagram is processed where it is awaited, without a
  // thread hand-off. Thread-safe; nothing happens when called from inside a callback.
  virtual size_t poll() = 0;
  // A thread starts / stops calling poll() in a loop. While threads poll (one did in the
  // last 100 us) and none sleeps after a spin, the progress thread does not watch the
  // socket (else every datagram would wake it too, and it would take the lock ahead of the
  // poller) and wakes only for posted work and alarms, or every millisecond to look again.
  // leave_spin(true) before the thread sleeps: the progress thread then watches the socket
  // at once, until that thread calls leave_sleep() (its wait is over).
  virtual void enter_spin() = 0;
  virtual void leave_spin(bool going_to_sleep) = 0;
  virtual void leave_sleep() = 0;
  // The core the progress thread returns to when a wake-up finds it elsewhere
  // (core/core_home.h); -1 (the default): none.
  virtual void set_home(int cpu) = 0;
  // Counts since creation, for the INFO log and the tests.
  struct Stats {
    uint64_t polled_datagrams = 0;    // received by poll() (not the progress thread)
    uint64_t polled_empty_reads = 0;  // poll()'s socket reads that found none (a peek that saw
                                      // one and lost it to the progress thread)
    uint64_t packets_without_data = 0;  // written with no stream data: mostly ACKs alone
    uint64_t alarms = 0;                // the progress thread woken by its timerfd
    uint64_t bulk_polls = 0;            // the progress thread's turns without a sleep after a bulk datagram
  };
  virtual Stats stats() const = 0;
  // True on a thread that holds the endpoint's lock (the progress thread while it works,
  // a thread inside try_run or poll).
  virtual bool on_progress_thread() const = 0;

  virtual const EndpointConfig& config() const = 0;
};

// Fills an EndpointConfig's tuning fields from the NEXAR_* parameters.
EndpointConfig endpoint_config_from_params(std::shared_ptr<const tls::Context> tls);

}  // namespace nexar::quic
