// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the rendezvous does with a parsed request: the store, long-poll waits with their
// deadlines, and the status document. Runs on the endpoint's progress thread only.
#pragma once

#include <functional>
#include <string>

#include "core/json_escape.h"
#include "rendezvous/kv_store.h"
#include "rendezvous/request.h"

namespace nexar::rendezvous {

class Service {
 public:
  using Respond = std::function<void(const Response&)>;
  using Clock = KvStore::Clock;

  // status_json: the body of GET /status (nullptr: the service's own counters).
  // arm_timer: asks for expire() to be called at (or soon after) a deadline; thread-safe.
  Service(std::function<std::string()> status_json, std::function<void(Clock::time_point)> arm_timer);

  // Answers r through respond, at once or later (a wait). Returns the id of a pending
  // wait, to cancel() if the requester goes away first; 0 when respond already ran.
  KvStore::WaitId handle(const Request& r, Respond respond);
  void cancel(KvStore::WaitId id) { store_.cancel(id); }

  // Answers waits whose deadline has passed (404) and re-arms the timer.
  void expire(Clock::time_point now);

  void client_connected() { ++clients_; }
  void client_disconnected() { --clients_; }

  // {"keys":N,"waiters":N,"clients":N,"requests":N}
  std::string counters_json() const;

  const KvStore& store() const { return store_; }
  // For an owner on the progress thread (nexrun's hang reports): the store, and a wait
  // whose deadline arms the timer as a client's does.
  KvStore& store() { return store_; }
  KvStore::WaitId watch(const std::string& key, Clock::time_point deadline, KvStore::WaitCallback cb);

 private:
  KvStore store_;
  std::function<std::string()> status_json_;
  std::function<void(Clock::time_point)> arm_timer_;
  int64_t clients_ = 0;
  int64_t requests_ = 0;
};

using nexar::json_escape;  // core/json_escape.h

}  // namespace nexar::rendezvous
