// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "thread_world.h"

#include <cstring>
#include <thread>

namespace nexar::coll::test {

struct ThreadWorld::Req {
  bool is_send = false;
  bool done = false;
  Status status;
  int peer = 0, tag = 0;
  void* buf = nullptr;
  size_t bytes = 0;
};

class ThreadWorld::Rank final : public CollContext {
 public:
  Rank(ThreadWorld* w, int r) : w_(w), r_(r) {}
  int rank() const override { return r_; }
  int size() const override { return w_->size_; }
  CollTransport transport() const override { return w_->opts_.transport; }
  const RouteStretch& routes() const override { return w_->opts_.routes; }
  Status isend(int peer, int tag, const void* buf, size_t bytes, Pending* out) override {
    return w_->isend(r_, peer, tag, buf, bytes, out);
  }
  Status irecv(int peer, int tag, void* buf, size_t bytes, Pending* out) override {
    return w_->irecv(r_, peer, tag, buf, bytes, out);
  }
  Status wait(Pending* p) override { return w_->wait(r_, p); }

 private:
  ThreadWorld* w_;
  int r_;
};

ThreadWorld::ThreadWorld(int size, Options opts) : size_(size), opts_(opts), boxes_(static_cast<size_t>(size)) {}

ThreadWorld::~ThreadWorld() {
  // Free whatever a failed run left behind: transfers still queued, and completed ones
  // an algorithm that failed never waited for (a real context cancels them).
  for (Req* r : live_) delete r;
}

std::vector<Status> ThreadWorld::run(const std::function<Status(CollContext&)>& fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = Status::Ok();
    messages_ = 0;
  }
  std::vector<Status> results(static_cast<size_t>(size_));
  std::vector<std::thread> threads;
  for (int r = 0; r < size_; ++r)
    threads.emplace_back([this, r, &fn, &results] {
      Rank ctx(this, r);
      Status st = fn(ctx);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        abort_locked(Status(NEXAR_ERR_ABORTED, strprintf("rank %d failed: %s", r, st.to_string().c_str())));
      }
      results[static_cast<size_t>(r)] = st;
    });
  for (std::thread& t : threads) t.join();
  return results;
}

std::string ThreadWorld::leftovers() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (int r = 0; r < size_; ++r) {
    for (auto& [k, q] : boxes_[r].unexpected)
      if (!q.empty()) out += strprintf("rank %d: %zu unreceived from %d tag %d; ", r, q.size(), k.first, k.second);
    for (auto& [k, q] : boxes_[r].posted)
      if (!q.empty()) out += strprintf("rank %d: %zu unmatched receives from %d tag %d; ", r, q.size(), k.first, k.second);
  }
  return out;
}

void ThreadWorld::abort_locked(const Status& why) {
  if (aborted_.ok()) aborted_ = why;
  cv_.notify_all();
}

void ThreadWorld::deliver(Req* recv, Msg& m) {
  if (m.bytes != recv->bytes) {
    recv->status = Status(NEXAR_ERR_MISMATCH, strprintf("receive of %zu bytes from rank %d tag %d got %zu bytes",
                                                        recv->bytes, recv->peer, recv->tag, m.bytes));
  } else if (m.bytes > 0) {
    std::memcpy(recv->buf, m.ref ? m.ref : m.copy.data(), m.bytes);
  }
  recv->done = true;
  if (m.send_req) m.send_req->done = true;
  cv_.notify_all();
}

Status ThreadWorld::isend(int src, int dst, int tag, const void* buf, size_t bytes, Pending* out) {
  if (dst < 0 || dst >= size_ || tag < 0)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("rank %d: send to %d tag %d", src, dst, tag));
  auto* req = new Req;
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(req);
    if (opts_.on_send) opts_.on_send(src, dst);
  }
  req->is_send = true;
  req->peer = dst;
  req->tag = tag;
  out->impl = req;
  Msg m;
  m.bytes = bytes;
  const auto* p = static_cast<const unsigned char*>(buf);
  if (bytes <= opts_.eager_bytes) {
    m.copy.assign(p, p + bytes);
    req->done = true;
  } else {
    m.ref = p;
    m.send_req = req;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++messages_;
  if (!aborted_.ok()) {
    req->done = true;
    return aborted_;
  }
  Mailbox& box = boxes_[dst];
  auto& posted = box.posted[{src, tag}];
  if (!posted.empty()) {
    Req* r = posted.front();
    posted.pop_front();
    deliver(r, m);
  } else {
    box.unexpected[{src, tag}].push_back(std::move(m));
  }
  return Status::Ok();
}

Status ThreadWorld::irecv(int dst, int src, int tag, void* buf, size_t bytes, Pending* out) {
  if (src < 0 || src >= size_ || tag < 0)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("rank %d: receive from %d tag %d", dst, src, tag));
  auto* req = new Req;
  req->peer = src;
  req->tag = tag;
  req->buf = buf;
  req->bytes = bytes;
  out->impl = req;
  std::lock_guard<std::mutex> lock(mu_);
  live_.insert(req);
  Mailbox& box = boxes_[dst];
  auto& q = box.unexpected[{src, tag}];
  if (!q.empty()) {
    Msg m = std::move(q.front());
    q.pop_front();
    deliver(req, m);
  } else {
    box.posted[{src, tag}].push_back(req);
  }
  return Status::Ok();
}

Status ThreadWorld::wait(int rank, Pending* p) {
  Req* req = static_cast<Req*>(p->impl);
  p->impl = nullptr;
  if (!req) return Status(NEXAR_ERR_INTERNAL, strprintf("rank %d: wait on an empty Pending", rank));
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + opts_.timeout;
  if (!cv_.wait_until(lock, deadline, [&] { return req->done || !aborted_.ok(); })) {
    abort_locked(Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d: %s peer %d tag %d timed out", rank,
                                                     req->is_send ? "send to" : "receive from", req->peer, req->tag)));
  }
  if (!req->done) return aborted_;  // left in its queue; freed by the destructor
  Status st = req->status;
  live_.erase(req);
  delete req;
  return st;
}

}  // namespace nexar::coll::test
