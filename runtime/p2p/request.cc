// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "p2p/request.h"

#include <algorithm>
#include <cstring>

namespace nexar::p2p {

void Request::write(size_t off, const uint8_t* data, size_t n) {
  if (regions.empty()) {
    if (n) std::memcpy(buf + off, data, n);
    return;
  }
  for (const iovec& r : regions) {
    if (n == 0) return;
    if (off >= r.iov_len) {
      off -= r.iov_len;
      continue;
    }
    const size_t k = std::min(n, r.iov_len - off);
    std::memcpy(static_cast<uint8_t*>(r.iov_base) + off, data, k);
    data += k;
    n -= k;
    off = 0;
  }
}

void Request::complete(const Status& status) {
  int expected = kPending;
  if (!state_.compare_exchange_strong(expected, kCompleting, std::memory_order_acq_rel)) return;
  status_ = status;
  // Drop the self-reference only after the waiters were released; the object may be
  // destroyed when `keep` goes out of scope, so nothing may touch *this after the store.
  RequestPtr keep = std::move(keepalive);
  Waiter* w = waiter_;
  state_.store(kDone, std::memory_order_release);
  w->ring();
}

bool Request::is_done() {
  if (done()) return true;
  waiter_->poll();
  return done();
}

Status Request::wait_until(Clock::time_point deadline) {
  if (!waiter_->wait([this] { return done(); }, deadline))
    return Status(NEXAR_ERR_TIMEOUT, "operation did not complete in time");
  return status_;
}

Status Request::result() {
  if (!done()) return Status::Ok();
  return status_;
}

}  // namespace nexar::p2p
