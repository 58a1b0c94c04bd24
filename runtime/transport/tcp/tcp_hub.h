// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The TCP data plane of one world (NEXAR_TRANSPORT=tcp): a listening socket, the connect
// proofs of connections being formed (tcp_handshake.h), and one epoll thread that moves
// bytes for the proven links, sends keep-alives and declares silent peers lost.
// Waiting threads may poll the links' sockets themselves (poll()): the hand-off to this
// thread costs tens of microseconds per message. While they poll, this thread leaves the
// links' sockets to them (it is "blind"): else every message woke it too, and on a busy
// core it ran ahead of the poller that waits for that message (two context switches and
// three system calls on the message's path). A poller that gives up and sleeps makes it
// watch again (leave_spin / leave_sleep).
//
// Two epoll sets: the outer one (listener, handshakes, wake-ups, the inner set) only
// this thread waits on; the inner one holds the proven links' sockets (edge-triggered),
// so a poller never sees a handshake.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/core_home.h"
#include "core/status.h"
#include "transport/blind_gate.h"
#include "transport/tcp/tcp_auth.h"
#include "transport/tcp/tcp_handshake.h"
#include "transport/tcp/tcp_link.h"

namespace nexar::tcp {

struct HubConfig {
  int rank = 0, world_size = 1;
  std::string bind_ip;  // the address QUIC binds (port chosen by the kernel)
  std::shared_ptr<Credential> credential;
  double peer_timeout_s = 5, keepalive_s = 1;
  double handshake_timeout_s = 10;  // a connection not proven by then is dropped
  // The congestion control of every connection: the first of this comma-separated list
  // the kernel takes ("": the host's default); create() fails when it takes none.
  std::string congestion;
};

class Hub {
 public:
  static Status create(const HubConfig& cfg, std::unique_ptr<Hub>* out);
  ~Hub();  // stops the thread; links must outlive it

  const std::string& local_address() const { return local_address_; }
  // The link to rank p (this hub keeps the pointer; it may take a connection from p).
  void set_link(int p, TcpLink* link);
  Status dial(TcpLink* link, const std::string& address);
  // Runs fn on the hub's thread.
  void post(std::function<void()> fn);
  bool on_thread() const { return std::this_thread::get_id() == thread_.get_id(); }
  // A waiting thread's poll: moves whatever the links' sockets have now (true if they had
  // anything: bytes to read or room to write). Non-blocking.
  bool poll();
  // A waiting thread's spin ended (going_to_sleep: it now sleeps, so this thread watches
  // the sockets until leave_sleep()).
  void leave_spin(bool going_to_sleep);
  void leave_sleep();
  // The core the hub's thread returns to when a wake-up finds it elsewhere
  // (core/core_home.h); -1 (the default): none.
  void set_home(int cpu) { home_.set(cpu); }
  // A proven link's socket joins the inner set.
  void watch(int fd, TcpLink* link);
  void unwatch(int fd);

 private:
  struct Pending {
    int fd;
    std::unique_ptr<Handshake> hs;
    TcpLink* link;  // the dialer's link; null when accepting
    std::string address;
    int64_t deadline_ns;
    bool connecting;  // a dial whose connect has not completed
  };
  explicit Hub(const HubConfig& cfg) : cfg_(cfg) {}
  Status choose_congestion();  // sets congestion_ on the listening socket (create())
  void run();
  void accept_all();
  void on_pending(Pending* p, uint32_t events);
  void finish_pending(Pending* p);
  void drop_pending(Pending* p, const Status& why);
  int poll_inner();  // the events handled
  bool poll_direct(bool* moved);  // false: a link waits for EPOLLOUT (ask epoll instead)
  void tick();
  bool decide_blind();  // the hub's thread, before it waits
  void wake();

  const HubConfig cfg_;
  std::string congestion_;  // what every connection gets (empty: the host's default)
  std::string local_address_;
  int listen_fd_ = -1, outer_ = -1, inner_ = -1, wake_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  CoreHome home_;              // the hub thread's core (set_home)
  transport::BlindGate gate_;  // whether the hub's thread waits without the sockets
  bool inner_muted_ = false;  // the hub's thread: the inner set is out of its epoll_wait
  std::unique_ptr<std::atomic<TcpLink*>[]> links_;  // index: world rank; set while the thread runs
  std::unordered_map<Pending*, std::unique_ptr<Pending>> pending_;  // the hub's thread only
  std::mutex post_mu_;
  std::vector<std::function<void()>> posted_;
  std::mutex dial_mu_;
  std::vector<std::unique_ptr<Pending>> dials_;  // started by dial(), adopted by the thread
};

// The monotonic clock in nanoseconds (keep-alive bookkeeping).
int64_t now_ns();

}  // namespace nexar::tcp
