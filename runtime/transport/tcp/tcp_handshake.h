// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One TCP connection's connect proof (tcp_auth.h), as a non-blocking state machine driven
// by the hub's thread: feed it what the socket reads, send what it wants written. Every
// length is bounded and checked before anything is allocated; the hub bounds its time.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "transport/tcp/tcp_auth.h"

namespace nexar::tcp {

class Handshake {
 public:
  enum class State { kRunning, kDone, kFailed };
  // Dialer: peer is the rank it dials. Acceptor: peer = -1 (the HELLO says who).
  Handshake(const Credential* cred, int world_size, bool dialer, int peer);

  // Bytes received; returns the new state. Bytes past the handshake stay in leftover().
  State on_bytes(const uint8_t* data, size_t n);
  // Bytes to send (taken by the caller).
  std::vector<uint8_t>& out() { return out_; }
  State state() const { return state_; }
  const Status& error() const { return error_; }  // kFailed: why (names the defect)
  int peer() const { return peer_; }             // the proven rank once kDone (acceptor: the claim before)
  std::vector<uint8_t>& leftover() { return in_; }
  bool dialer() const { return dialer_; }

 private:
  State fail(nexar_result_t code, const std::string& why);
  State step();
  State on_hello();
  State on_reply();
  State on_proof();

  const Credential* cred_;
  const int world_size_;
  const bool dialer_;
  int peer_;
  int phase_ = 0;  // dialer: 0 await REPLY; acceptor: 0 await HELLO, 1 await PROOF
  State state_ = State::kRunning;
  Status error_;
  Nonce mine_{}, theirs_{};
  std::array<uint8_t, 32> key_{};
  std::vector<uint8_t> in_, out_;
};

}  // namespace nexar::tcp
