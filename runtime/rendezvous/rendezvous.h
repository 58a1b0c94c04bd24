// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The job's rendezvous service: a key-value store and a read-only job status, served by
// nexrun over HTTP/3 (nghttp3) on QUIC with the job's mutual TLS. Never on the data path.
//
// HTTP/3 resources (all require a client certificate of this job):
//   PUT  /kv/<key>            body = value            -> 204
//   GET  /kv/<key>                                     -> 200 value | 404
//   GET  /kv/<key>?wait=<ms>  waits up to ms for the key -> 200 value | 404 after ms
//   POST /add/<key>           body = decimal delta      -> 200 new value (decimal); absent key is 0
//   GET  /all/<prefix>?count=<n>&wait=<ms>               -> 200 every key under prefix with
//                             its value (entries.h), once n keys are there or ms passed
//   GET  /status                                       -> 200 application/json job status
// Keys are [A-Za-z0-9._/-]{1,256}; values at most 1 MiB; anything else is 400 with a
// one-line text/plain body naming what was wrong (bad key, method, path, query, number).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "rendezvous/entries.h"
#include "transport/quic/endpoint.h"

namespace nexar::rendezvous {

class Service;

class Server {
 public:
  // Serves on its own endpoint (created by the caller with the launcher's credentials and
  // accept_alpns {"h3"}); status_json is called on the progress thread for GET /status
  // (nullptr: the server's own counters, {"keys":N,"waiters":N,"clients":N,"requests":N}).
  // Destroying the Server closes its connections; it may happen before or after the
  // endpoint is destroyed (before is cleaner: clients see the close at once).
  static Status start(quic::Endpoint* endpoint, std::function<std::string()> status_json,
                      std::unique_ptr<Server>* out);
  virtual ~Server() = default;
  // Runs fn on the progress thread with the service (its store), unless the server or
  // its endpoint is gone first. Any thread; never blocks.
  virtual void post(std::function<void(Service&)> fn) = 0;
};

class Client {
 public:
  // Connects (blocking, up to timeout) through an existing endpoint of this rank to the
  // rendezvous at address ("ip:port"). NEXAR_ERR_AUTH when the server is not this job's
  // launcher; NEXAR_ERR_TIMEOUT when it does not answer. Destroy the Client before the
  // endpoint. Once the connection is lost, every pending and later call fails with
  // NEXAR_ERR_PEER_LOST naming the address; a 400 from the server is
  // NEXAR_ERR_INVALID_ARGUMENT carrying its reason (keys and value sizes are also checked
  // locally first).
  static Status connect(quic::Endpoint* endpoint, const std::string& address,
                        std::chrono::milliseconds timeout, std::unique_ptr<Client>* out);
  virtual ~Client() = default;

  // Blocking calls, thread-safe, each bounded by timeout.
  virtual Status set(const std::string& key, const std::string& value, std::chrono::milliseconds timeout) = 0;
  // NEXAR_ERR_INVALID_ARGUMENT-free "absent": returns ok with *found = false.
  virtual Status get(const std::string& key, std::string* value, bool* found, std::chrono::milliseconds timeout) = 0;
  // Waits until key exists: NEXAR_ERR_TIMEOUT if it does not appear in time. A long poll:
  // the server holds the request, nothing spins.
  virtual Status wait(const std::string& key, std::string* value, std::chrono::milliseconds timeout) = 0;
  // Every key starting with prefix, with its value, once at least count exist (one long
  // poll, one answer: entries.h). After timeout: ok with the entries present then, fewer
  // than count; the caller names what is missing.
  virtual Status gather(const std::string& prefix, size_t count, Entries* entries, std::chrono::milliseconds timeout) = 0;
  virtual Status add(const std::string& key, int64_t delta, int64_t* result, std::chrono::milliseconds timeout) = 0;
  virtual Status status(std::string* json, std::chrono::milliseconds timeout) = 0;

  // Non-blocking forms for a library that must not hold a thread (the hang-report
  // responder): done runs once on the endpoint's progress thread, also after the Client
  // is destroyed (then with NEXAR_ERR_PEER_LOST), so it may capture only what it owns.
  // wait_async: ok with the value, NEXAR_ERR_TIMEOUT when the key did not appear in time.
  using AsyncValue = std::function<void(const Status&, const std::string& value)>;
  virtual void wait_async(const std::string& key, std::chrono::milliseconds timeout, AsyncValue done) = 0;
  virtual void set_async(const std::string& key, const std::string& value, AsyncValue done) = 0;
};

}  // namespace nexar::rendezvous
