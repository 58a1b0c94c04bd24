// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A link to a rank on another host (QUIC, or TCP with NEXAR_TRANSPORT=tcp): the PeerLink
// the engine sends on, plus what the world does with it while forming and tearing down.
#pragma once

#include <chrono>
#include <string>

#include "transport/transport.h"

namespace nexar::transport {

class NetLink : public PeerLink {
 public:
  // Client side: dial the peer at address ("ip:port"). Thread-safe.
  virtual Status dial(const std::string& address) = 0;
  // Waits until the peer is connected and proven, or the connection failed, or deadline.
  virtual Status wait_ready(std::chrono::steady_clock::time_point deadline) = 0;
  // Orderly goodbye: sends BYE; wait_goodbye waits until everything sent was delivered and
  // the peer's BYE arrived (or deadline), so that closing loses nothing either way.
  virtual void send_bye() = 0;
  virtual Status wait_goodbye(std::chrono::steady_clock::time_point deadline) = 0;
  // Waits until everything sent so far is delivered (or the connection ended, or
  // deadline), without waiting for the peer's BYE (a broken world's teardown).
  virtual Status wait_delivered(std::chrono::steady_clock::time_point deadline) = 0;
  // Closes the connection (or refuses any later one); returns at once.
  virtual void close() = 0;
  // The peer is known gone (its process exited on this host): the connection ends at once
  // and the sink hears on_peer_lost(why) unless the peer had said goodbye.
  virtual void peer_gone(const Status& why) = 0;
  // Whether the link has a connection or is making one; false only for a link that
  // connects on first use and was not used yet (it has no goodbye to say).
  virtual bool in_use() const { return true; }
};

}  // namespace nexar::transport
