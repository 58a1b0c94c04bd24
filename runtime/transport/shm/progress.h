// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Work that waiting threads do for transports that need their help: polling shared-memory
// rings. Non-blocking and thread-safe (a poll that finds another thread polling returns).
#pragma once

namespace nexar::shm {

class Progress {
 public:
  virtual ~Progress() = default;
  virtual void poll() = 0;
};

}  // namespace nexar::shm
