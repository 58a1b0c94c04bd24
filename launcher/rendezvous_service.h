// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The job's rendezvous service as nexrun runs it: a QUIC endpoint on 127.0.0.1 (ephemeral
// port, or NEXAR_PORT_RANGE; another address when hosts are remote) with the launcher's credential, ALPN h3, and the rendezvous server on it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "launcher/hang_collector.h"
#include "launcher/job_status.h"
#include "rendezvous/host.h"

namespace nexar::launcher {

class RendezvousService {
 public:
  RendezvousService() = default;
  ~RendezvousService() { stop(); }
  RendezvousService(const RendezvousService&) = delete;
  RendezvousService& operator=(const RendezvousService&) = delete;

  // GET /status shows status (read on the endpoint's progress thread), which hang
  // reports update. bind_ip: loopback for one host; for many, an address every host can reach.
  Status start(const std::string& launcher_credential_file, JobStatus* status,
               const std::string& bind_ip = "127.0.0.1");
  // "127.0.0.1:port", the value of NEXAR_RENDEZVOUS.
  const std::string& address() const { return address_; }
  // The job's hang reports (SIGUSR1, --timeout, failures); valid after start().
  HangCollector& hangs() { return *hangs_; }
  // Closes every connection and stops the progress thread. Idempotent.
  void stop();

 private:
  std::unique_ptr<rendezvous::Host> host_;
  std::unique_ptr<HangCollector> hangs_;
  JobStatus* status_ = nullptr;
  std::string address_;
};

}  // namespace nexar::launcher
