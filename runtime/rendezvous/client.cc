// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// rendezvous::Client: blocking, thread-safe calls over one HTTP/3 connection. Each call
// posts its request to the endpoint's progress thread and waits (bounded) for the
// answer; a call that gives up cancels its stream so the server drops it too.
#include <condition_variable>
#include <mutex>

#include "core/fault.h"
#include "core/log.h"
#include "core/text.h"
#include "rendezvous/entries.h"
#include "rendezvous/h3_client_app.h"
#include "rendezvous/kv_store.h"
#include "rendezvous/rendezvous.h"
#include "rendezvous/request.h"

namespace nexar::rendezvous {
namespace {

using std::chrono::milliseconds;

// A result handed from the progress thread to a waiting user thread.
template <typename T>
struct Handoff {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  T value;

  void put(T v) {
    std::lock_guard<std::mutex> lock(mu);
    if (done) return;
    done = true;
    value = std::move(v);
    cv.notify_all();
  }
  bool wait_for(milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, timeout, [this] { return done; });
  }
};

class ClientImpl : public Client {
 public:
  ClientImpl(quic::Endpoint* endpoint, std::string address, std::shared_ptr<H3ClientApp> app)
      : endpoint_(endpoint), address_(std::move(address)), app_(std::move(app)) {}

  ~ClientImpl() override {
    std::shared_ptr<H3ClientApp> app = app_;
    endpoint_->post([app] { app->close(); });
  }

  Status set(const std::string& key, const std::string& value, milliseconds timeout) override {
    Request r;
    r.op = Op::kSet;
    r.key = key;
    r.value = value;
    HttpResult res;
    NX_RETURN_IF_ERROR(call(r, timeout, &res));
    if (res.http_status == 204 || res.http_status == 200) return Status::Ok();
    return unexpected(address_, r, res);
  }

  Status get(const std::string& key, std::string* value, bool* found, milliseconds timeout) override {
    Request r;
    r.op = Op::kGet;
    r.key = key;
    HttpResult res;
    NX_RETURN_IF_ERROR(call(r, timeout, &res));
    if (res.http_status == 200) {
      *found = true;
      *value = std::move(res.body);
      return Status::Ok();
    }
    if (res.http_status == 404) {
      *found = false;
      return Status::Ok();
    }
    return unexpected(address_, r, res);
  }

  Status wait(const std::string& key, std::string* value, milliseconds timeout) override {
    Request r = wait_request(key, timeout);
    HttpResult res;
    NX_RETURN_IF_ERROR(call(r, timeout, &res));
    return wait_result(address_, r, timeout, std::move(res), value);
  }

  void wait_async(const std::string& key, milliseconds timeout, AsyncValue done) override {
    Request r = wait_request(key, timeout);
    submit(r, [address = address_, r, timeout, done = std::move(done)](HttpResult res) {
      std::string value;
      Status st = res.status.ok() ? wait_result(address, r, timeout, std::move(res), &value) : res.status;
      done(st, value);
    });
  }

  void set_async(const std::string& key, const std::string& value, AsyncValue done) override {
    Request r;
    r.op = Op::kSet;
    r.key = key;
    r.value = value;
    submit(r, [address = address_, r, done = std::move(done)](HttpResult res) {
      Status st = res.status;
      if (st.ok() && res.http_status != 204 && res.http_status != 200) st = unexpected(address, r, res);
      done(st, std::string());
    });
  }

  Status gather(const std::string& prefix, size_t count, Entries* entries, milliseconds timeout) override {
    Request r = wait_request(prefix, timeout);
    r.op = Op::kGather;
    r.count = static_cast<int64_t>(count);
    HttpResult res;
    NX_RETURN_IF_ERROR(call(r, timeout, &res));
    if (res.http_status != 200) return unexpected(address_, r, res);
    return decode_entries(res.body, entries).with_context(what(r));
  }

  Status add(const std::string& key, int64_t delta, int64_t* result, milliseconds timeout) override {
    Request r;
    r.op = Op::kAdd;
    r.key = key;
    r.delta = delta;
    HttpResult res;
    NX_RETURN_IF_ERROR(call(r, timeout, &res));
    if (res.http_status == 200 && parse_int64(trim(res.body), result)) return Status::Ok();
    return unexpected(address_, r, res);
  }

  Status status(std::string* json, milliseconds timeout) override {
    Request r;
    r.op = Op::kStatus;
    HttpResult res;
    NX_RETURN_IF_ERROR(call(r, timeout, &res));
    if (res.http_status != 200) return unexpected(address_, r, res);
    *json = std::move(res.body);
    return Status::Ok();
  }

 private:
  static std::string what(const std::string& address, const Request& r) {
    std::string s = "rendezvous at " + address + ": " + op_name(r.op);
    if (r.op != Op::kStatus) s += " '" + r.key + "'";
    return s;
  }
  std::string what(const Request& r) const { return what(address_, r); }

  static Request wait_request(const std::string& key, milliseconds timeout) {
    Request r;
    r.op = Op::kWait;
    r.key = key;
    // The server gives up a little earlier, so that its 404 usually beats our own timer.
    r.wait = std::max(milliseconds(0), timeout - std::min(timeout / 10, milliseconds(100)));
    return r;
  }

  static Status wait_result(const std::string& address, const Request& r, milliseconds timeout, HttpResult res,
                            std::string* value) {
    if (res.http_status == 200) {
      *value = std::move(res.body);
      return Status::Ok();
    }
    if (res.http_status == 404) {
      return Status(NEXAR_ERR_TIMEOUT, strprintf("rendezvous at %s: key '%s' did not appear within %lld ms",
                                                 address.c_str(), r.key.c_str(),
                                                 static_cast<long long>(timeout.count())));
    }
    return unexpected(address, r, res);
  }

  Status check(const Request& r) const {
    std::string why;
    if (r.op != Op::kStatus && !valid_key(r.key, &why)) return Status(NEXAR_ERR_INVALID_ARGUMENT, what(r) + ": " + why);
    if (r.value.size() > kMaxValueSize) {
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    strprintf("%s: value of %zu bytes exceeds %zu", what(r).c_str(), r.value.size(), kMaxValueSize));
    }
    return Status::Ok();
  }

  // A response the call did not expect: 400 is the server naming a bad argument.
  static Status unexpected(const std::string& address, const Request& r, const HttpResult& res) {
    if (res.http_status == 400) return Status(NEXAR_ERR_INVALID_ARGUMENT, what(address, r) + ": " + trim(res.body));
    return Status(NEXAR_ERR_PROTOCOL,
                  strprintf("%s: unexpected HTTP status %d: %s", what(address, r).c_str(), res.http_status,
                            trim(res.body.substr(0, 200)).c_str()));
  }

  // Sends r from the progress thread; done runs there (at once with the error when r is
  // invalid). Returns the request's token, written and read on the progress thread only.
  std::shared_ptr<uint64_t> submit(const Request& r, H3ClientApp::Completion done) {
    auto token = std::make_shared<uint64_t>(0);
    if (Status st = check(r); !st.ok()) {
      endpoint_->post([st, done = std::move(done)] { done(HttpResult{st, 0, {}}); });
      return token;
    }
    RequestLine line = request_line(r);
    std::string body = r.op == Op::kSet ? r.value : r.op == Op::kAdd ? std::to_string(r.delta) : std::string();
    std::shared_ptr<H3ClientApp> app = app_;
    endpoint_->post([app, token, method = std::string(line.method), path = line.path, body = std::move(body),
                     done = std::move(done)]() mutable {
      *token = app->send(std::move(method), std::move(path), std::move(body), std::move(done));
    });
    return token;
  }

  Status call(const Request& r, milliseconds timeout, HttpResult* out) {
    NX_RETURN_IF_ERROR(check(r));
    if (timeout.count() < 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, what(r) + ": negative timeout");
    auto handoff = std::make_shared<Handoff<HttpResult>>();
    std::shared_ptr<uint64_t> token = submit(r, [handoff](HttpResult res) { handoff->put(std::move(res)); });
    std::shared_ptr<H3ClientApp> app = app_;
    if (!handoff->wait_for(timeout)) {
      endpoint_->post([app, token] { app->cancel(*token); });
      return Status(NEXAR_ERR_TIMEOUT, strprintf("%s: no answer within %lld ms", what(r).c_str(),
                                                 static_cast<long long>(timeout.count())));
    }
    std::lock_guard<std::mutex> lock(handoff->mu);
    if (!handoff->value.status.ok()) return handoff->value.status;
    *out = std::move(handoff->value);
    return Status::Ok();
  }

  quic::Endpoint* endpoint_;
  std::string address_;
  std::shared_ptr<H3ClientApp> app_;
};

}  // namespace

Status Client::connect(quic::Endpoint* endpoint, const std::string& address, std::chrono::milliseconds timeout,
                       std::unique_ptr<Client>* out) {
  fault::kill_point("rendezvous");  // testing only (NEXAR_FAULT_KILL)
  if (!endpoint || !out) return Status(NEXAR_ERR_INVALID_ARGUMENT, "rendezvous client: null endpoint or out");
  auto app = std::make_shared<H3ClientApp>(endpoint, address);
  auto up = std::make_shared<Handoff<Status>>();
  app->on_up = [up] { up->put(Status::Ok()); };
  app->on_down = [up](const Status& why) {
    up->put(why.ok() ? Status(NEXAR_ERR_PEER_LOST, "closed") : why);
  };
  app->hold_self(app);
  Status st = endpoint->connect(address, "h3", quic::ExpectedPeer{tls::kLauncherRank}, app.get());
  if (!st.ok()) {
    app->drop_self();
    return st.with_context("rendezvous at " + address);
  }
  if (!up->wait_for(timeout)) {
    endpoint->post([app] { app->close(); });
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rendezvous at %s: not reached within %lld ms", address.c_str(),
                                               static_cast<long long>(timeout.count())));
  }
  {
    std::lock_guard<std::mutex> lock(up->mu);
    if (!up->value.ok()) return up->value.with_context("rendezvous at " + address);
  }
  NX_INFO(BOOT, "rendezvous client: connected to %s", address.c_str());
  *out = std::make_unique<ClientImpl>(endpoint, address, std::move(app));
  return Status::Ok();
}

}  // namespace nexar::rendezvous
