// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/request.hpp: a non-blocking operation (nexar::Request) and a group of them
// started together (nexar::GroupGuard).
#pragma once

#include <utility>

#include "nexar/error.hpp"
#include "nexar/nexar.h"
#include "nexar/status.hpp"

namespace nexar {

// Groups sends and receives (nexar_group_start/end): they start together when end() is
// called or, if it was not, when the guard goes out of scope (errors then ignored: call
// end() to see them). Per thread; guards nest.
class GroupGuard {
 public:
  GroupGuard() { check(nexar_group_start(), nullptr, "nexar_group_start"); }
  GroupGuard(const GroupGuard&) = delete;
  GroupGuard& operator=(const GroupGuard&) = delete;
  ~GroupGuard() {
    if (open_) (void)nexar_group_end();
  }
  // Starts the group's operations and waits for all; throws the first failure.
  void end() {
    if (!open_) return;
    open_ = false;
    check(nexar_group_end(), nullptr, "nexar_group_end");
  }

 private:
  bool open_ = true;
};

// A non-blocking operation. wait() completes it (throwing on failure); a Request dropped
// unfinished is waited for by its destructor, errors ignored, so no buffer is left in use.
class Request {
 public:
  Request() = default;
  explicit Request(nexar_request_t r) : req_(r) {}
  Request(Request&& o) noexcept : req_(std::exchange(o.req_, nullptr)) {}
  Request& operator=(Request&& o) noexcept {
    if (this != &o) {
      reset();
      req_ = std::exchange(o.req_, nullptr);
    }
    return *this;
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request() { reset(); }

  void wait() {
    if (!req_) return;
    check(nexar_wait(std::exchange(req_, nullptr)), nullptr, "nexar_wait");
  }
  // True once complete (then the request is finished and freed).
  bool test() {
    if (!req_) return true;
    int done = 0;
    nexar_result_t r = nexar_test(req_, &done);
    if (done) req_ = nullptr;
    if (r == NEXAR_IN_PROGRESS) return false;
    check(r, nullptr, "nexar_test");
    return true;
  }
  // wait() that also returns what a receive received.
  MessageStatus wait_status() {
    nexar_status_t st{-1, -1, 0};
    if (req_) check(nexar_wait_status(std::exchange(req_, nullptr), &st), nullptr, "nexar_wait_status");
    return MessageStatus(st);
  }
  bool valid() const { return req_ != nullptr; }

 private:
  void reset() {
    if (req_) (void)nexar_wait(std::exchange(req_, nullptr));
  }
  nexar_request_t req_ = nullptr;
};

}  // namespace nexar
