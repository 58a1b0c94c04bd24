// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Test harness: a CollContext for N ranks that are threads of this process, exchanging
// messages through one mutex-protected set of queues. Matching is on (source, tag), in
// order. Messages up to eager_bytes are copied at send time; larger ones are copied
// straight from the sender's buffer when a receive matches them, and their send only
// completes then (as a rendezvous transport would), so an algorithm that reuses a buffer
// too early or relies on unbounded buffering fails here. Every wait has a timeout; the
// first error aborts the whole world so no thread hangs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectives/coll_context.h"

namespace nexar::coll::test {

class ThreadWorld {
 public:
  struct Options {
    size_t eager_bytes = 256;
    std::chrono::milliseconds timeout{20000};
    CollTransport transport = CollTransport::NETWORK;
    RouteStretch routes;  // what CollContext::routes() reports (a sparse topology's)
    // Told every send (source, destination), under the world's lock.
    std::function<void(int src, int dst)> on_send;
  };
  explicit ThreadWorld(int size) : ThreadWorld(size, Options{}) {}
  ThreadWorld(int size, Options opts);
  ~ThreadWorld();

  // Runs fn(ctx) on every rank, each in its own thread; returns each rank's result.
  std::vector<Status> run(const std::function<Status(CollContext&)>& fn);
  // Messages sent but never received, and receives posted but never matched ("" if none).
  std::string leftovers();
  // Messages sent in the last run, all ranks together.
  size_t messages_sent() const { return messages_; }

 private:
  class Rank;
  struct Req;
  struct Msg {
    std::vector<unsigned char> copy;          // eager
    const unsigned char* ref = nullptr;       // rendezvous: the sender's buffer
    size_t bytes = 0;
    Req* send_req = nullptr;                  // rendezvous: completed at match
  };
  using Key = std::pair<int, int>;  // (src, tag) in the destination's queues
  struct Mailbox {
    std::map<Key, std::deque<Msg>> unexpected;
    std::map<Key, std::deque<Req*>> posted;
  };

  Status isend(int src, int dst, int tag, const void* buf, size_t bytes, Pending* out);
  Status irecv(int dst, int src, int tag, void* buf, size_t bytes, Pending* out);
  Status wait(int rank, Pending* p);
  void deliver(Req* recv, Msg& m);  // with mu_ held
  void abort_locked(const Status& why);

  int size_;
  Options opts_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Mailbox> boxes_;
  std::set<Req*> live_;  // every request not yet waited for (freed by the destructor)
  Status aborted_;
  size_t messages_ = 0;
};

}  // namespace nexar::coll::test
