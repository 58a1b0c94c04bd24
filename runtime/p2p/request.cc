#include "p2p/request.h"

namespace nexar::p2p {

void Request::complete(const Status& status) {
  // Drop the self-reference only after the waiters were released; the object may be
  // destroyed when `keep` goes out of scope, so nothing may touch *this after that.
  RequestPtr keep;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    done_ = true;
    status_ = status;
    keep = std::move(keepalive);
    cv_.notify_all();
  }
}

bool Request::is_done() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

Status Request::wait_until(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, deadline, [&] { return done_; }))
    return Status(NEXAR_ERR_TIMEOUT, "operation did not complete in time");
  return status_;
}

Status Request::result() {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace nexar::p2p
