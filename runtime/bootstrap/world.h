// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The process's world: credential, QUIC endpoint, rendezvous client, engine and one link
// per peer. Built by nexar_init, and again by nexar_comm_rebuild (world_generation.cc):
// each build is a generation with its own endpoint, engine, links and shared memory;
// lives while any communicator refers to it.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "bootstrap/hang_responder.h"
#include "bootstrap/launch_env.h"
#include "bootstrap/peer_gate.h"
#include "bootstrap/world_progress.h"
#include "comm/comm.h"
#include "comm/ft_service.h"
#include "p2p/engine.h"
#include "p2p/self_link.h"
#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"
#include "transport/quic_link/quic_link.h"
#include "transport/shm/shm_hub.h"
#include "transport/shm/token.h"
#include "transport/tcp/tcp_hub.h"

namespace nexar::bootstrap {

class World {
 public:
  // Reads nothing from the environment: info says who we are. Forms the full mesh. A
  // replacement (info.incarnation > 0 in a job whose rendezvous already knows its rank)
  // waits until the survivors rebuild, and joins that generation.
  static Status create(const LaunchInfo& info, std::shared_ptr<World>* out);
  // nexar_comm_rebuild: the next generation of old's world, formed by the survivors that
  // call this and the replacements the launcher started for failed ranks; a rank that
  // joins with neither within timeout_s fails it with NEXAR_ERR_PEER_LOST naming it.
  static Status rebuild(World& old, double timeout_s, std::shared_ptr<World>* out);
  ~World();

  // 0 from nexar_init; g after the g-th rebuild (its rendezvous keys start with "g<g>/").
  int generation() const { return generation_; }
  // NEXAR_RESTART_COUNT of the process holding world rank r.
  int incarnation(int r) const { return incarnations_[static_cast<size_t>(r)]; }

  const LaunchInfo& info() const { return info_; }
  p2p::Engine& engine() { return *engine_; }
  const std::vector<std::string>& host_ids() const { return host_ids_; }
  const topology::Topology& topology() const { return topology_; }
  // Per world rank: the CPUs the ranks on its host may use together (the union of their
  // affinity masks, exchanged with the addresses): the same vector on every rank.
  std::vector<int> host_cores() const;
  // Whether world rank r is reached over shared memory (else QUIC or TCP, or the self link).
  bool uses_shm(int r) const { return shm_ && shm_->link(r) != nullptr; }
  shm::ShmHub* shm_hub() const { return shm_.get(); }
  comm::ft::Service* ft() const { return ft_.get(); }
  // Handles that carry this world (nexar_init's, and each nexar_comm_shrink of it): the
  // last one destroyed says goodbye to the peers (shutdown).
  void add_handle() { handles_.fetch_add(1); }
  bool drop_handle() { return handles_.fetch_sub(1) == 1; }
  // Waits until every peer acknowledged what was sent and said goodbye, then closes the
  // connections. A broken world (broken = true) does not wait for the peers' goodbyes (a
  // peer that stopped answering would hold it up for a whole timeout), only, until
  // deadline, for what this rank sent to reach the peers still alive: a survivor may still
  // wait for its last message (the barrier of a destroy that finished here first).
  Status shutdown(p2p::Clock::time_point deadline, bool broken = false);
  // "rank R: C of N network peers connected (...)" for the log: how many of the peers reached over
  // QUIC or TCP have a connection (made or under way); with NEXAR_CONNECT=lazy, those used.
  std::string connection_summary() const;
  // "rank R: relayed B bytes for others, ..." for the log (a sparse NEXAR_TOPOLOGY; "" when
  // every pair is linked): what this rank forwarded so far and its relay budget's peaks.
  std::string relay_summary() const;
  // A communicator broke (comm::WorldInfo::on_broken): a timeout or a lost peer asks
  // nexrun for a hang report and waits for it, bounded (hang_responder.h).
  void on_comm_broken(const Status& why);

 private:
  explicit World(const LaunchInfo& info);
  // Endpoint, rendezvous, addresses, mesh. peer_timeout bounds the wait for each peer's
  // address (survivors of a rebuild also call the replacements in meanwhile).
  Status form(std::chrono::milliseconds peer_timeout);
  Status start_endpoint();
  // NEXAR_TRANSPORT=tcp: the TCP hub and links (the endpoint stays for the rendezvous).
  Status start_tcp(const std::string& bind_ip);
  Status reach_rendezvous();
  // A replacement: announce this incarnation and learn the generation to join.
  Status await_rebuild(bool* replacement);
  // A survivor of a rebuild: wait for rank p's entry; while it is missing, tell a
  // replacement of p (if the launcher started one) which generation to join.
  Status await_entry(int p, std::string* entry, p2p::Clock::time_point deadline);
  // Every rank's address entry of this generation (index: world rank; this rank's left
  // empty): one gather from the rendezvous, or a survivor of a rebuild: await_entry each.
  Status fetch_entries(std::vector<std::string>* entries, p2p::Clock::time_point deadline);
  std::string key(const std::string& name) const;
  Status exchange_addresses(std::vector<std::string>* addresses, std::chrono::milliseconds peer_timeout);
  Status connect_mesh(const std::vector<std::string>& addresses);
  // Answers nexrun's hang-report rounds from here on (hang_responder.h), when nexrun collects.
  void start_hang_responder();
  // Shared memory with the ranks on this host (tokens from the rendezvous): true per peer.
  Status start_shm(std::vector<bool>* shm_peer);
  // Rank p shares this rank's host and can share its memory (rendezvous entries).
  bool shm_candidate(int p) const;
  // Waiting threads poll shared memory and the QUIC socket (whichever peers use), spinning
  // NEXAR_SHM_SPIN_US / NEXAR_QUIC_SPIN_US before they sleep.
  void configure_waiter();
  // Ranks on this host reached over QUIC (NEXAR_TRANSPORT=quic): their exit ends their
  // connection at once (pidfd) instead of at the next keep-alive's ICMP or the idle timeout.
  void watch_local_quic_peers();

  LaunchInfo info_;
  int generation_ = 0;
  int last_rebuild_ = 0;                   // the generation the latest rebuild from this world tried
  std::vector<int> incarnations_;          // per world rank
  std::vector<int> predecessors_;          // survivors of a rebuild: incarnations in the old world
  std::vector<std::string> host_ids_;
  std::vector<std::string> cpu_masks_;     // per world rank: its affinity mask (core/cores.h)
  std::shared_ptr<tls::Context> tls_;
  std::unique_ptr<comm::ft::Service> ft_;  // goes after everything that delivers to it
  std::unique_ptr<p2p::Engine> engine_;
  std::unique_ptr<p2p::SelfLink> self_link_;
  std::vector<std::unique_ptr<PeerGate>> gates_;              // index: world rank; QUIC links deliver here
  std::vector<std::unique_ptr<transport::NetLink>> links_;   // index: world rank; QUIC or TCP
  std::unique_ptr<quic::Endpoint> endpoint_;
  std::unique_ptr<tcp::Hub> tcp_;  // NEXAR_TRANSPORT=tcp: the data plane between ranks
  std::unique_ptr<rendezvous::Client> rendezvous_;
  std::unique_ptr<HangResponder> hang_responder_;  // answers nexrun's hang reports
  std::vector<shm::Token> shm_tokens_;  // index: world rank
  std::unique_ptr<shm::ShmHub> shm_;
  std::unique_ptr<WorldProgress> progress_;  // what the engine's waiter polls
  std::unique_ptr<shm::PeerWatch> quic_watch_;
  bool lazy_ = false;  // NEXAR_CONNECT=lazy: QUIC connections made on first use
  topology::Topology topology_;  // NEXAR_TOPOLOGY: which QUIC peers this rank links to
  bool closed_ = false;
  std::atomic<int> handles_{0};
};

// NEXAR_CONNECT_TIMEOUT: how long forming a world may take.
std::chrono::milliseconds connect_timeout();

// Makes the world communicator over a World.
std::shared_ptr<comm::Comm> make_world_comm(const std::shared_ptr<World>& world, double timeout_s);

}  // namespace nexar::bootstrap
