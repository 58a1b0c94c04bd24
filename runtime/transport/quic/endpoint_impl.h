// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The endpoint behind the Endpoint interface: socket, progress thread, CID map, posted
// work. endpoint.cc: creation and the thread-safe API; endpoint_loop.cc: the thread;
// endpoint_poll.cc: the lock, and the work other threads do under it (try_run, poll).
//
// io_mu_ guards every connection and the loop's state. The progress thread holds it except
// while it sleeps in ppoll; a sending thread (try_run) or a waiting thread (poll) takes it
// in between and does the work itself. A thread that moved the earliest expiry before the
// loop's timeout arms a timerfd instead of waking the loop.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/core_home.h"
#include "transport/blind_gate.h"
#include "transport/quic/address.h"
#include "transport/quic/connection_impl.h"
#include "transport/quic/endpoint.h"
#include "transport/quic/udp_socket.h"

namespace nexar::quic {

class EndpointImpl final : public Endpoint {
 public:
  explicit EndpointImpl(const EndpointConfig& config);
  ~EndpointImpl() override;

  Status start(const Address& bind_to);

  std::string local_address() const override { return socket_.local().to_string(); }
  uint16_t local_port() const override { return socket_.local().port(); }
  void set_accept_handler(AcceptHandler handler) override;
  Status connect(const std::string& address, const std::string& alpn, ExpectedPeer expect,
                 Application* app) override;
  void post(std::function<void()> fn) override;
  bool try_run(void (*fn)(void*), void* arg) override;
  size_t poll() override;
  void enter_spin() override;
  void leave_spin(bool going_to_sleep) override;
  void leave_sleep() override;
  void set_home(int cpu) override { home_.set(cpu); }
  Stats stats() const override;
  bool on_progress_thread() const override { return inside_ == this; }
  const EndpointConfig& config() const override { return config_; }

  // For connections (under io_mu_).
  UdpSocket& socket() { return socket_; }
  void add_cid(const uint8_t* cid, size_t len, ConnectionImpl* conn);
  void remove_cid(const uint8_t* cid, size_t len);
  void mark_dirty(ConnectionImpl* conn);
  void want_writable() { want_writable_ = true; }
  void count_packet_without_data() { packets_without_data_.fetch_add(1, std::memory_order_relaxed); }
  // Writes that left data for a pacing slot (never on an unpaced connection: path_mtu.h).
  void count_budget_ended_write() { budget_ended_writes_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t budget_ended_writes() const { return budget_ended_writes_.load(std::memory_order_relaxed); }
  // Inside try_run / poll: a thread other than the progress thread, which leaves closes
  // (everything that ends in Application::on_closed) to the progress thread.
  bool direct() const { return direct_; }
  // A direct worker found work only the progress thread may do: it is woken on the way out.
  void need_loop() { need_loop_ = true; }
  // The accept handler's answer for a verified client (nullptr: refuse).
  Application* accept(Connection& conn);
  // Reads every datagram the socket holds now (bounded) and hands each to its connection:
  // what a peer known gone sent before it went (ConnectionImpl::abort, an ICMP error in
  // end_unreachable). Nothing when
  // called from inside a receive (its batch is being handed out).
  void read_queued();

 private:
  // The endpoint whose io_mu_ this thread holds, if any.
  static thread_local const EndpointImpl* inside_;

  void run();
  void run_posted();
  void wake();
  bool lock_briefly();
  // Takes io_mu_ for a direct worker / gives it back (re-arming the timer, waking the loop
  // when it must carry out closes or retry writes).
  void enter_direct();
  void leave_direct();
  void arm_timer(ngtcp2_tstamp at);
  void rearm_timer();  // to the earliest expiry, unless only a stale far one would move
  void write_all_dirty(ngtcp2_tstamp now);
  // One socket read (UdpSocket::receive's bound), each datagram to its connection.
  size_t receive(ngtcp2_tstamp rx);
  void on_datagram(const Address& from, uint8_t* data, size_t len, ngtcp2_tstamp now);
  void accept_new(const Address& from, uint8_t* data, size_t len, ngtcp2_tstamp now);
  // Reads the socket's ICMP errors; ends every connection whose peer is unreachable (port
  // unreachable: its process is gone) after reading what the socket holds (read_queued).
  void end_unreachable();
  // acks false: without delayed ACKs of small datagrams and held ACKs' ends
  // (ConnectionImpl::expiry), which a blind loop's alarm is not armed for.
  ngtcp2_tstamp next_expiry(bool acks = true) const;
  bool service_timers(ngtcp2_tstamp now);  // true if any connection's timer was due
  void write_dirty(ngtcp2_tstamp now);
  void reap();
  void close_all();

  EndpointConfig config_;
  UdpSocket socket_;
  int wake_fd_ = -1;
  int timer_fd_ = -1;
  std::thread thread_;
  std::atomic<uint64_t> polled_{0};
  std::atomic<uint64_t> polled_empty_{0};
  std::atomic<uint64_t> packets_without_data_{0};
  std::atomic<uint64_t> budget_ended_writes_{0};
  std::atomic<uint64_t> alarms_{0};
  std::atomic<bool> loop_wants_lock_{false};  // the progress thread waits for io_mu_
  std::atomic<int> spinners_{0};              // threads between enter_spin and leave_spin
  CoreHome home_;                             // the progress thread's core (set_home)
  transport::BlindGate gate_;                 // whether the progress thread sleeps without the socket
  std::atomic<bool> timer_stale_{false};      // the timerfd may not match the earliest expiry
  std::atomic<uint64_t> expiry_hint_{0};       // the earliest expiry as of the last work under io_mu_

  std::mutex mu_;  // guards posted_ and accept_handler_
  std::vector<std::function<void()>> posted_;
  AcceptHandler accept_handler_;

  // Guards everything below it (see the top of this file).
  std::mutex io_mu_;
  ngtcp2_tstamp armed_ = UINT64_MAX;     // when timer_fd_ fires (UINT64_MAX: disarmed)
  ngtcp2_tstamp deadline_ = UINT64_MAX;  // when the loop's ppoll times out (as it last slept)
  bool direct_ = false;
  bool receiving_ = false;  // inside receive(): the socket's batch is being handed out
  bool bulk_read_ = false;         // the loop's turn read a bulk datagram (endpoint_loop.cc)
  ngtcp2_tstamp bulk_until_ = 0;  // the loop polls the socket without sleeping until then
  unsigned bulk_since_yield_ = 0;  // polls without a sleep, for the yield every kBulkPollsPerYield
  std::atomic<uint64_t> bulk_polls_{0};  // Stats::bulk_polls
  bool need_loop_ = false;
  bool stopping_ = false;
  bool want_writable_ = false;
  std::vector<std::unique_ptr<ConnectionImpl>> conns_;
  std::unordered_map<std::string, ConnectionImpl*> by_cid_;
  std::vector<ConnectionImpl*> dirty_;
};

}  // namespace nexar::quic
