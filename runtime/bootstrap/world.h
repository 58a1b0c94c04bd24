// The process's world: credential, QUIC endpoint, rendezvous client, engine and one link
// per peer. Built once by nexar_init; lives while any communicator refers to it.
#pragma once

#include <memory>
#include <vector>

#include "bootstrap/launch_env.h"
#include "comm/comm.h"
#include "p2p/engine.h"
#include "p2p/self_link.h"
#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"
#include "transport/quic_link/quic_link.h"

namespace nexar::bootstrap {

class World {
 public:
  // Reads nothing from the environment: info says who we are. Forms the full mesh.
  static Status create(const LaunchInfo& info, std::shared_ptr<World>* out);
  ~World();

  const LaunchInfo& info() const { return info_; }
  p2p::Engine& engine() { return *engine_; }
  const std::vector<std::string>& host_ids() const { return host_ids_; }
  // Waits until every peer acknowledged what was sent, then closes the connections.
  Status shutdown(p2p::Clock::time_point deadline);

 private:
  explicit World(const LaunchInfo& info);
  Status start_endpoint();
  Status exchange_addresses(std::vector<std::string>* addresses);
  Status connect_mesh(const std::vector<std::string>& addresses);

  LaunchInfo info_;
  std::vector<std::string> host_ids_;
  std::shared_ptr<tls::Context> tls_;
  std::unique_ptr<p2p::Engine> engine_;
  std::unique_ptr<p2p::SelfLink> self_link_;
  std::vector<std::unique_ptr<quic_link::QuicLink>> links_;  // index: world rank
  std::unique_ptr<quic::Endpoint> endpoint_;
  std::unique_ptr<rendezvous::Client> rendezvous_;
  bool closed_ = false;
};

// Makes the world communicator over a World.
std::shared_ptr<comm::Comm> make_world_comm(const std::shared_ptr<World>& world, double timeout_s);

}  // namespace nexar::bootstrap
