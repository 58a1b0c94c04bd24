// The job's rendezvous service as nexrun runs it: a QUIC endpoint on 127.0.0.1 (ephemeral
// port, or NEXAR_PORT_RANGE; another address when hosts are remote) with the launcher's credential, ALPN h3, and the rendezvous server on it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"

namespace nexar::launcher {

class RendezvousService {
 public:
  RendezvousService() = default;
  ~RendezvousService() { stop(); }
  RendezvousService(const RendezvousService&) = delete;
  RendezvousService& operator=(const RendezvousService&) = delete;

  // status_json is called on the endpoint's progress thread for GET /status.
  // bind_ip: loopback for one host; for many, an address every host can reach.
  Status start(const std::string& launcher_credential_file, std::function<std::string()> status_json,
               const std::string& bind_ip = "127.0.0.1");
  // "127.0.0.1:port", the value of NEXAR_RENDEZVOUS.
  const std::string& address() const { return address_; }
  // Closes every connection and stops the progress thread. Idempotent.
  void stop();

 private:
  std::unique_ptr<quic::Endpoint> endpoint_;
  std::unique_ptr<rendezvous::Server> server_;
  std::string address_;
};

}  // namespace nexar::launcher
