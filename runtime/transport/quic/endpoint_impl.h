// The endpoint behind the Endpoint interface: socket, progress thread, CID map, posted
// work. endpoint.cc: creation and the thread-safe API; endpoint_loop.cc: the thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

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
  bool on_progress_thread() const override { return std::this_thread::get_id() == thread_id_.load(); }
  const EndpointConfig& config() const override { return config_; }

  // For connections (progress thread).
  UdpSocket& socket() { return socket_; }
  void add_cid(const uint8_t* cid, size_t len, ConnectionImpl* conn);
  void remove_cid(const uint8_t* cid, size_t len);
  void mark_dirty(ConnectionImpl* conn);
  void want_writable() { want_writable_ = true; }
  // The accept handler's answer for a verified client (nullptr: refuse).
  Application* accept(Connection& conn);

 private:
  void run();
  void run_posted();
  void on_datagram(const Address& from, uint8_t* data, size_t len, ngtcp2_tstamp now);
  void accept_new(const Address& from, uint8_t* data, size_t len, ngtcp2_tstamp now);
  void on_icmp_error(const Address& dest, int err);
  ngtcp2_tstamp next_expiry() const;
  void service_timers(ngtcp2_tstamp now);
  void write_dirty(ngtcp2_tstamp now);
  void reap();
  void close_all();

  EndpointConfig config_;
  UdpSocket socket_;
  int wake_fd_ = -1;
  std::thread thread_;
  std::atomic<std::thread::id> thread_id_{};

  std::mutex mu_;  // guards posted_ and accept_handler_
  std::vector<std::function<void()>> posted_;
  AcceptHandler accept_handler_;

  // Progress thread only.
  bool stopping_ = false;
  bool want_writable_ = false;
  std::vector<std::unique_ptr<ConnectionImpl>> conns_;
  std::unordered_map<std::string, ConnectionImpl*> by_cid_;
  std::vector<ConnectionImpl*> dirty_;
};

}  // namespace nexar::quic
