// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rendezvous served by this process: a QUIC endpoint with the job's launcher credential
// (ALPN h3) and the rendezvous server on it. nexrun serves its jobs' rendezvous this way,
// and so do the processes that start without nexrun: srun direct launch's task 0 and the
// caller of nexar_get_unique_id.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"
#include "transport/tls/tls_context.h"

namespace nexar::rendezvous {

class Host {
 public:
  // Binds bind_ip (port from NEXAR_PORT_RANGE, else ephemeral) with tls, whose own
  // certificate must be the job's launcher's. status_json: see Server::start.
  static Status start(std::shared_ptr<tls::Context> tls, const std::string& bind_ip,
                      std::function<std::string()> status_json, std::unique_ptr<Host>* out);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // "ip:port": what the job's processes connect to.
  const std::string& address() const { return address_; }
  Server& server() { return *server_; }

 private:
  Host() = default;
  std::unique_ptr<quic::Endpoint> endpoint_;
  std::unique_ptr<Server> server_;
  std::string address_;
};

}  // namespace nexar::rendezvous
