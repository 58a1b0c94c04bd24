// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/service.h"

#include "core/log.h"

namespace nexar::rendezvous {
namespace {

Response text(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response not_found(const std::string& key) { return text(404, "key '" + key + "' not found\n"); }

}  // namespace

Service::Service(std::function<std::string()> status_json, std::function<void(Clock::time_point)> arm_timer)
    : status_json_(std::move(status_json)), arm_timer_(std::move(arm_timer)) {}

KvStore::WaitId Service::handle(const Request& r, Respond respond) {
  ++requests_;
  NX_TRACE(BOOT, "rendezvous: %s '%s' (%zu bytes)", op_name(r.op), r.key.c_str(), r.value.size());
  switch (r.op) {
    case Op::kSet:
      store_.set(r.key, r.value);
      respond(text(204, ""));
      return 0;
    case Op::kGet: {
      const std::string* v = store_.get(r.key);
      respond(v ? text(200, *v) : not_found(r.key));
      return 0;
    }
    case Op::kWait: {
      std::string key = r.key;
      return watch(r.key, Clock::now() + r.wait, [respond, key](bool found, const std::string& value) {
        respond(found ? text(200, value) : not_found(key));
      });
    }
    case Op::kGather: {
      const Clock::time_point deadline = Clock::now() + r.wait;
      // Answered with what is there, whether the count was reached or the deadline passed.
      KvStore::WaitId id = store_.gather(r.key, static_cast<size_t>(r.count), deadline,
                                         [respond](bool, const std::string& entries) { respond(text(200, entries)); });
      if (id != 0 && arm_timer_) arm_timer_(deadline);
      return id;
    }
    case Op::kAdd: {
      int64_t result = 0;
      Status st = store_.add(r.key, r.delta, &result);
      respond(st.ok() ? text(200, std::to_string(result)) : bad_request(st.message()));
      return 0;
    }
    case Op::kStatus: {
      Response resp = text(200, status_json_ ? status_json_() : counters_json());
      resp.content_type = "application/json";
      respond(resp);
      return 0;
    }
  }
  respond(bad_request("unknown operation"));
  return 0;
}

KvStore::WaitId Service::watch(const std::string& key, Clock::time_point deadline, KvStore::WaitCallback cb) {
  KvStore::WaitId id = store_.wait(key, deadline, std::move(cb));
  if (id != 0 && arm_timer_) arm_timer_(deadline);
  return id;
}

void Service::expire(Clock::time_point now) {
  size_t n = store_.expire(now);
  if (n) NX_TRACE(BOOT, "rendezvous: %zu wait(s) timed out", n);
  if (auto next = store_.next_deadline(); next && arm_timer_) arm_timer_(*next);
}

std::string Service::counters_json() const {
  return strprintf("{\"keys\":%zu,\"waiters\":%zu,\"clients\":%lld,\"requests\":%lld}", store_.key_count(),
                   store_.waiter_count(), static_cast<long long>(clients_), static_cast<long long>(requests_));
}

}  // namespace nexar::rendezvous
