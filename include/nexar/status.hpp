// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/status.hpp: what a probe or a receive learnt of a message.
#pragma once

#include <cstddef>

#include "nexar/nexar.h"

namespace nexar {

// What a probe or a receive learnt of a message (nexar_status_t): sender, tag, size.
struct MessageStatus {
  int source = -1;  // rank in the communicator; -1: no message was matched
  int tag = -1;
  size_t bytes = 0;
  MessageStatus() = default;
  explicit MessageStatus(const nexar_status_t& s) : source(s.source), tag(s.tag), bytes(s.bytes) {}
  // The message's size in elements of T (for sizing a receive buffer).
  template <typename T>
  size_t count() const {
    return bytes / sizeof(T);
  }
};

}  // namespace nexar
