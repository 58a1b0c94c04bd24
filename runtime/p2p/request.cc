#include "p2p/request.h"

namespace nexar::p2p {

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
