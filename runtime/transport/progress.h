// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Work that waiting threads do for transports that need their help: polling shared-memory
// rings and, where no thread serves it, a QUIC endpoint (bootstrap/world_progress.h).
// Non-blocking and thread-safe (a poll that finds another thread polling returns).
#pragma once

namespace nexar::transport {

class Progress {
 public:
  virtual ~Progress() = default;
  // True when it moved something (a message, a datagram, bytes either way): a waiting
  // thread whose polls move data keeps polling (p2p::Waiter).
  virtual bool poll() = 0;
};

}  // namespace nexar::transport
