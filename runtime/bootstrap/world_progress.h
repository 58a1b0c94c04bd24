// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a waiting thread of this rank polls (p2p::Waiter): the shared-memory rings of the
// ranks on this host and the QUIC endpoint's socket or the TCP links' sockets, whichever exist. Polling the socket
// where a message is awaited takes the progress thread's hand-off (two thread wake-ups,
// tens of microseconds on a VM) off the path of every QUIC message.
#pragma once

#include <atomic>
#include <cstdint>

#include "p2p/waiter.h"
#include "transport/quic/endpoint.h"
#include "transport/progress.h"
#include "transport/tcp/tcp_hub.h"

namespace nexar::bootstrap {

class WorldProgress final : public transport::Progress, public p2p::SpinListener {
 public:
  // Any may be null; detach() before the endpoint or the TCP hub goes.
  WorldProgress(transport::Progress* shm, quic::Endpoint* endpoint, tcp::Hub* tcp = nullptr)
      : shm_(shm), endpoint_(endpoint), tcp_(tcp) {}
  void detach() {
    endpoint_.store(nullptr, std::memory_order_release);
    tcp_.store(nullptr, std::memory_order_release);
  }

  bool poll() override {
    bool moved = false;
    if (shm_ != nullptr) {
      moved = shm_->poll();
      // A shared-memory poll costs nanoseconds, a socket's a system call: with both, the
      // socket is read every kShmPollsPerSocket-th time only, so shm latency stays.
      const uint32_t n = calls_.load(std::memory_order_relaxed) + 1;
      calls_.store(n, std::memory_order_relaxed);
      if ((n & (kShmPollsPerSocket - 1)) != 0) return moved;
    }
    if (quic::Endpoint* ep = endpoint_.load(std::memory_order_acquire)) moved = ep->poll() > 0 || moved;
    if (tcp::Hub* tcp = tcp_.load(std::memory_order_acquire)) moved = tcp->poll() || moved;
    return moved;
  }
  void spin_begin() override {
    if (quic::Endpoint* ep = endpoint_.load(std::memory_order_acquire)) ep->enter_spin();
  }
  void spin_end(bool going_to_sleep) override {
    if (quic::Endpoint* ep = endpoint_.load(std::memory_order_acquire)) ep->leave_spin(going_to_sleep);
    if (tcp::Hub* tcp = tcp_.load(std::memory_order_acquire)) tcp->leave_spin(going_to_sleep);
  }
  void sleep_end() override {
    if (quic::Endpoint* ep = endpoint_.load(std::memory_order_acquire)) ep->leave_sleep();
    if (tcp::Hub* tcp = tcp_.load(std::memory_order_acquire)) tcp->leave_sleep();
  }

 private:
  static constexpr uint32_t kShmPollsPerSocket = 16;
  transport::Progress* const shm_;
  std::atomic<quic::Endpoint*> endpoint_;
  std::atomic<tcp::Hub*> tcp_;
  std::atomic<uint32_t> calls_{0};  // a sampling rate: increments lost between threads do no harm
};

}  // namespace nexar::bootstrap
