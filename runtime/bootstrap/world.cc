// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/world.h"

#include "bootstrap/address_select.h"
#include "bootstrap/connect_mode.h"
#include "bootstrap/host_identity.h"
#include "bootstrap/relay_drain.h"
#include "bootstrap/unique_id_join.h"
#include "core/log.h"
#include "core/core_home.h"
#include "core/cores.h"
#include "core/params.h"
#include "core/thread_name.h"
#include "trace/flight_recorder.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace nexar::bootstrap {

std::chrono::milliseconds connect_timeout() {
  return std::chrono::milliseconds(static_cast<int64_t>(param::NEXAR_CONNECT_TIMEOUT.get() * 1000));
}

World::World(const LaunchInfo& info) : info_(info) {
  engine_ = std::make_unique<p2p::Engine>(info.rank, info.world_size,
                                          static_cast<size_t>(param::NEXAR_UNEXPECTED_LIMIT.get()));
  self_link_ = std::make_unique<p2p::SelfLink>(engine_.get(), info.rank);
  engine_->set_link(info.rank, self_link_.get());
  ft_ = std::make_unique<comm::ft::Service>(engine_.get());
  host_ids_.assign(static_cast<size_t>(info.world_size), "");
  incarnations_.assign(static_cast<size_t>(info.world_size), 0);
  incarnations_[static_cast<size_t>(info.rank)] = info.incarnation;
  host_ids_[static_cast<size_t>(info.rank)] = host_identity();
  cpu_masks_.assign(static_cast<size_t>(info.world_size), "");
  cpu_masks_[static_cast<size_t>(info.rank)] = affinity_hex();
}

std::vector<int> World::host_cores() const {
  std::vector<int> out(host_ids_.size());
  for (size_t p = 0; p < out.size(); ++p) {
    std::vector<std::string> masks;
    for (size_t q = 0; q < out.size(); ++q)
      if (host_ids_[q] == host_ids_[p]) masks.push_back(cpu_masks_[q]);
    out[p] = std::max(1, cpus_in_union(masks));
  }
  return out;
}

World::~World() {
  // Order matters: the watch posts to links, the endpoint's thread calls into links, links
  // into the engine; waiters sleep on the shared-memory doorbell until the hub goes.
  quic_watch_.reset();
  hang_responder_.reset();
  rendezvous_.reset();
  if (progress_) progress_->detach();  // waiters stop polling the endpoint before it goes
  if (endpoint_) {  // tests/quic/quic_poll_test.cc reads this line
    const quic::Endpoint::Stats st = endpoint_->stats();
    NX_INFO(NET,
            "rank %d: waiting threads read %llu QUIC datagrams themselves (%llu reads found none); "
            "%llu packets without stream data sent; %llu progress-thread alarms; "
            "%llu progress-thread polls after bulk datagrams",
            info_.rank, static_cast<unsigned long long>(st.polled_datagrams),
            static_cast<unsigned long long>(st.polled_empty_reads),
            static_cast<unsigned long long>(st.packets_without_data), static_cast<unsigned long long>(st.alarms),
            static_cast<unsigned long long>(st.bulk_polls));
  }
  endpoint_.reset();
  tcp_.reset();  // its thread calls into links
  links_.clear();
  engine_->waiter().reset();
  shm_.reset();
  ft_.reset();
}

Status World::create(const LaunchInfo& info, std::shared_ptr<World>* out) {
  std::shared_ptr<World> w(new World(info));
  if (!info.singleton && info.world_size > 1) NX_RETURN_IF_ERROR(w->form(connect_timeout()));
  *out = std::move(w);
  return Status::Ok();
}

Status World::form(std::chrono::milliseconds peer_timeout) {
  NX_RETURN_IF_ERROR(start_endpoint());
  NX_RETURN_IF_ERROR(reach_rendezvous());
  if (info_.unique_id_join && generation_ == 0)
    NX_RETURN_IF_ERROR(unique_id_join(*rendezvous_, info_.rank, info_.world_size, connect_timeout()));
  bool replacement = false;
  if (info_.incarnation > 0 && predecessors_.empty()) NX_RETURN_IF_ERROR(await_rebuild(&replacement));
  std::vector<std::string> addresses;
  NX_RETURN_IF_ERROR(exchange_addresses(&addresses, peer_timeout));
  NX_RETURN_IF_ERROR(connect_mesh(addresses));
  start_hang_responder();
  return Status::Ok();
}

void World::start_hang_responder() {
  // Only nexrun collects reports: it keeps dump/next (absent under srun direct launch).
  std::string next;
  bool found = false;
  if (!rendezvous_->get("dump/next", &next, &found, connect_timeout()).ok() || !found) return;
  // This rank's record: the flight recorder's snapshot (trace/flight_recorder.h).
  hang_responder_ = std::make_unique<HangResponder>(rendezvous_.get(), info_.rank, std::atoll(next.c_str()),
                                                    [] { return trace::snapshot_json(); });
}

Status World::reach_rendezvous() {
  return rendezvous::Client::connect(endpoint_.get(), info_.rendezvous, connect_timeout(), &rendezvous_)
      .with_context("reaching the rendezvous at " + info_.rendezvous);
}

std::string World::key(const std::string& name) const {
  return generation_ == 0 ? name : strprintf("g%d/%s", generation_, name.c_str());
}

Status World::start_endpoint() {
  if (!info_.credential_pem.empty())
    NX_RETURN_IF_ERROR(tls::Context::from_pem(info_.credential_pem, "the credential nexar_init_rank issued", &tls_));
  else
    NX_RETURN_IF_ERROR(tls::Context::load(info_.credentials, &tls_).with_context("loading the job credential"));
  if (tls_->self().rank != info_.rank || tls_->self().job_id != info_.job_id)
    return Status(NEXAR_ERR_AUTH, strprintf("credential %s is for %s, not job %s rank %d", info_.credentials.c_str(),
                                            tls_->self().to_string().c_str(), info_.job_id.c_str(), info_.rank));
  quic::EndpointConfig cfg = quic::endpoint_config_from_params(tls_);
  // NEXAR_ADDR / NEXAR_IFACE / NEXAR_ADDR_CIDR, else the route toward the rendezvous
  // (loopback only when the rendezvous is on loopback): address_select.h.
  NX_RETURN_IF_ERROR(select_address_from_params(info_.rendezvous, &cfg.bind_address));
  cfg.accept_alpns = {quic_link::kAlpn};
  NX_RETURN_IF_ERROR(quic::Endpoint::create(cfg, &endpoint_));
  endpoint_->post([] { name_this_thread("nexar-quic"); });  // the rank's progress thread
  NX_INFO(NET, "rank %d listening on %s", info_.rank, endpoint_->local_address().c_str());
  const std::string transport = param::NEXAR_TRANSPORT.get();
  if (transport != "auto" && transport != "quic" && transport != "tcp")
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("NEXAR_TRANSPORT=%s is not a transport (auto, quic or tcp)", transport.c_str()));
  NX_RETURN_IF_ERROR(lazy_connections(transport, &lazy_));
  NX_RETURN_IF_ERROR(topology_from_params(transport, info_.world_size, &topology_));
  engine_->set_topology(topology_);
  uint64_t relay_budget = 0;
  size_t relay_fragment = 0;
  NX_RETURN_IF_ERROR(relay_budget_from_params(topology_, info_.world_size, &relay_budget, &relay_fragment));
  engine_->set_relay_budget(relay_budget, relay_fragment);
  if (transport == "tcp") return start_tcp(cfg.bind_address);
  for (int p = 0; p < info_.world_size; ++p) {
    gates_.push_back(std::make_unique<PeerGate>(engine_.get()));
    // A rank that is not a neighbour in the topology is reached through one (p2p/engine_relay.cc).
    const bool linked = topology::adjacent(topology_, info_.world_size, info_.rank, p);
    quic_link::QuicLink* link = !linked ? nullptr
                                        : new quic_link::QuicLink(info_.rank, info_.world_size, p,
                                                                  gates_.back().get(), endpoint_.get());
    links_.emplace_back(link);
    if (link && lazy_) link->connect_on_first_use();
    if (link) engine_->set_link(p, link);
  }
  // Higher ranks dial lower ones; an accepted connection must come from a higher rank, or
  // (lazy) be a lower rank's knock asking this one to dial it.
  endpoint_->set_accept_handler([this](quic::Connection& conn) -> quic::Application* {
    const int r = conn.peer().rank;
    const bool knock = lazy_ && r >= 0 && r < info_.rank;
    if ((r <= info_.rank && !knock) || r >= info_.world_size || !gates_[static_cast<size_t>(r)]->is_open() ||
        !links_[static_cast<size_t>(r)]) {
      NX_WARN(NET, "refusing a connection from %s: not a rank that dials this one (NEXAR_TOPOLOGY=%s)",
              conn.peer().to_string().c_str(), topology::name(topology_).c_str());
      return nullptr;
    }
    auto* link = static_cast<quic_link::QuicLink*>(links_[static_cast<size_t>(r)].get());
    if (knock) return link->accept_knock(conn);
    return link->adopt(conn) ? link : nullptr;
  });
  return Status::Ok();
}

Status World::start_tcp(const std::string& bind_ip) {
  tcp::HubConfig hc;
  hc.rank = info_.rank;
  hc.world_size = info_.world_size;
  hc.bind_ip = bind_ip;
  hc.peer_timeout_s = param::NEXAR_PEER_TIMEOUT.get();
  hc.keepalive_s = param::NEXAR_KEEPALIVE.get();
  hc.handshake_timeout_s = std::min(5.0, param::NEXAR_CONNECT_TIMEOUT.get());
  hc.congestion = param::NEXAR_TCP_CONGESTION.get();
  if (!info_.credential_pem.empty())
    NX_RETURN_IF_ERROR(tcp::Credential::from_pem(info_.credential_pem, "the credential nexar_init_rank issued", &hc.credential));
  else
    NX_RETURN_IF_ERROR(tcp::Credential::load(info_.credentials, &hc.credential).with_context("loading the job credential"));
  NX_RETURN_IF_ERROR(tcp::Hub::create(hc, &tcp_));
  tcp_->post([] { name_this_thread("nexar-tcp"); });
  NX_INFO(NET, "rank %d: data between ranks goes over TCP from %s, NOT encrypted (NEXAR_TRANSPORT=tcp; membership is "
          "proven at connect)", info_.rank, tcp_->local_address().c_str());
  for (int p = 0; p < info_.world_size; ++p) {
    gates_.push_back(std::make_unique<PeerGate>(engine_.get()));
    if (p == info_.rank) {
      links_.emplace_back(nullptr);
      continue;
    }
    auto* link = new tcp::TcpLink(info_.rank, p, gates_.back().get(), tcp_.get());
    links_.emplace_back(link);
    tcp_->set_link(p, link);
    engine_->set_link(p, link);
  }
  endpoint_->set_accept_handler([](quic::Connection& conn) -> quic::Application* {
    NX_WARN(NET, "refusing a QUIC connection from %s: data between ranks goes over TCP (NEXAR_TRANSPORT=tcp)",
            conn.peer().to_string().c_str());
    return nullptr;
  });
  return Status::Ok();
}

Status World::exchange_addresses(std::vector<std::string>* addresses, std::chrono::milliseconds peer_timeout) {
  const auto timeout = connect_timeout();
  // "<ip:port> <incarnation> <affinity mask> <connect mode> <host identity> <shm token>"
  // (the mask in hex, core/cores.h; the mode NEXAR_CONNECT's, which must be the same on
  // every rank; shm/token.h: "pid:..." when QUIC is forced; a fresh inbox name in every
  // generation).
  shm_tokens_.assign(static_cast<size_t>(info_.world_size), shm::Token{});
  // auto: shared memory on one host; quic or tcp force that transport for every peer.
  shm_tokens_[static_cast<size_t>(info_.rank)] = param::NEXAR_TRANSPORT.get() == "auto"
                                                     ? shm::Token::make(info_.job_id, info_.rank)
                                                     : shm::Token::process_only();
  const std::string mine = (tcp_ ? tcp_->local_address() : endpoint_->local_address()) + " " + std::to_string(info_.incarnation) + " " +
                           cpu_masks_[static_cast<size_t>(info_.rank)] + " " + connection_field(lazy_, topology_) + " " + host_ids_[static_cast<size_t>(info_.rank)] + " " +
                           shm_tokens_[static_cast<size_t>(info_.rank)].to_string();
  NX_RETURN_IF_ERROR(rendezvous_->set(key("addr/" + std::to_string(info_.rank)), mine, timeout));
  addresses->assign(static_cast<size_t>(info_.world_size), "");
  std::vector<std::string> entries;
  NX_RETURN_IF_ERROR(fetch_entries(&entries, p2p::Clock::now() + peer_timeout));
  for (int p = 0; p < info_.world_size; ++p) {
    if (p == info_.rank) continue;
    const std::string& v = entries[static_cast<size_t>(p)];
    const size_t sp = v.find(' ');
    const size_t sp2 = sp == std::string::npos ? sp : v.find(' ', sp + 1);
    char* end = nullptr;
    const long inc = sp2 == std::string::npos ? -1 : std::strtol(v.c_str() + sp + 1, &end, 10);
    if (inc < 0 || end != v.c_str() + sp2)
      return Status(NEXAR_ERR_PROTOCOL, strprintf("malformed address entry for rank %d: '%s'", p, v.c_str()));
    const size_t sp3 = v.find(' ', sp2 + 1);
    const size_t sp4 = sp3 == std::string::npos ? sp3 : v.find(' ', sp3 + 1);
    if (sp4 == std::string::npos)
      return Status(NEXAR_ERR_PROTOCOL, strprintf("address entry for rank %d has no host identity: '%s'", p, v.c_str()));
    NX_RETURN_IF_ERROR(same_connections(info_.rank, lazy_, topology_, p, v.substr(sp3 + 1, sp4 - sp3 - 1)));
    (*addresses)[static_cast<size_t>(p)] = v.substr(0, sp);
    incarnations_[static_cast<size_t>(p)] = static_cast<int>(inc);
    cpu_masks_[static_cast<size_t>(p)] = v.substr(sp2 + 1, sp3 - sp2 - 1);
    std::string host = v.substr(sp4 + 1);
    const size_t last = host.rfind(' ');
    if (last != std::string::npos) {  // a shm token follows the host identity
      NX_RETURN_IF_ERROR(shm::Token::parse(host.substr(last + 1), &shm_tokens_[static_cast<size_t>(p)])
                             .with_context(strprintf("rank %d's address entry", p)));
      host.resize(last);
    }
    host_ids_[static_cast<size_t>(p)] = host;
  }
  return Status::Ok();
}

bool World::shm_candidate(int p) const {
  const auto i = static_cast<size_t>(p), me = static_cast<size_t>(info_.rank);
  return p == info_.rank || (host_ids_[i] == host_ids_[me] && shm_tokens_[i].compatible(shm_tokens_[me]));
}

Status World::start_shm(std::vector<bool>* shm_peer) {
  shm_peer->assign(static_cast<size_t>(info_.world_size), false);
  shm::HubConfig cfg;
  cfg.rank = info_.rank;
  cfg.tokens = shm_tokens_;
  for (int p = 0; p < info_.world_size; ++p)
    if (shm_candidate(p)) cfg.local_ranks.push_back(p);
  if (cfg.local_ranks.size() < 2) return Status::Ok();
  cfg.ring_bytes = static_cast<size_t>(std::max<int64_t>(4096, param::NEXAR_SHM_RING_BYTES.get()));
  cfg.eager_limit = static_cast<size_t>(std::max<int64_t>(0, param::NEXAR_SHM_EAGER.get()));
  cfg.allow_cma = param::NEXAR_SHM_CMA.get();
  NX_RETURN_IF_ERROR(shm::ShmHub::create(cfg, engine_.get(), &shm_));
  NX_RETURN_IF_ERROR(shm_->connect(p2p::Clock::now() + connect_timeout()).with_context("joining the ranks on this host"));
  for (int p : shm_->peers()) {
    (*shm_peer)[static_cast<size_t>(p)] = true;
    engine_->set_link(p, shm_->link(p));
    // Its QUIC link is unused: whatever connects as p there is not p's rank (shm_candidate
    // is the same on both sides), and must not reach the engine.
    gates_[static_cast<size_t>(p)]->close();
    if (links_[static_cast<size_t>(p)]) links_[static_cast<size_t>(p)]->close();
  }
  return Status::Ok();
}

void World::configure_waiter() {
  bool any_quic = false;
  int here = 0;  // ranks on this host, this one included
  for (int p = 0; p < info_.world_size; ++p) {
    if (p != info_.rank && !uses_shm(p)) any_quic = true;
    if (host_ids_[static_cast<size_t>(p)] == host_ids_[static_cast<size_t>(info_.rank)]) ++here;
  }
  auto spin_us = [](params::Param<params::Type::DOUBLE> p) { return static_cast<int64_t>(std::max(0.0, p.get()) * 1000); };
  // With more ranks here than cores, the spin yields the CPU to the ranks it waits for.
  const int ncpu = host_cores()[static_cast<size_t>(info_.rank)];
  const bool oversubscribed = here > ncpu;
  // NEXAR_QUIC_SPIN_US=0, or more ranks than cores: the socket is left to the progress
  // thread (8 ranks on 2 cores under other load: spinning made a 4 B allreduce up to 7x
  // slower, the progress thread's wake-ups cost less than the yields).
  const int64_t quic_spin_ns =
      any_quic && !oversubscribed ? spin_us(tcp_ ? param::NEXAR_TCP_SPIN_US : param::NEXAR_QUIC_SPIN_US) : 0;
  const bool poll_quic = quic_spin_ns > 0;
  if (!shm_ && !poll_quic) return;
  // With more ranks here than cores a wait yields to them at least kCrowdedSpinNs before it
  // sleeps: the ranks it waits for run in the slices it gives away, and a collective's
  // round at 1 MiB takes them a few hundred microseconds; sleeping sooner adds a wake-up
  // to every round. Past the bound a rank that waits long (a barrier) costs no core.
  constexpr int64_t kCrowdedSpinNs = 1'000'000;
  const int64_t spin_ns = std::max({shm_ ? spin_us(param::NEXAR_SHM_SPIN_US) : 0, quic_spin_ns,
                                    shm_ && oversubscribed ? kCrowdedSpinNs : 0});
  progress_ = std::make_unique<WorldProgress>(shm_.get(), poll_quic && !tcp_ ? endpoint_.get() : nullptr,
                                              poll_quic ? tcp_.get() : nullptr);
  // Completions ring the shared-memory inbox doorbell when there is one (senders on this
  // host ring it too), else the waiter's own.
  // Polling the QUIC socket, the spin yields after its hard part: the progress threads
  // (this rank's and its peers') need a core now and then. Polling the TCP sockets it
  // yields only past its spin time: the hub's thread is blind meanwhile, and every yield
  // handed the core to whatever else was runnable there for its slice (np 2 allreduce
  // 1 MiB with one busy thread on a rank's core: 1.1-12 ms a call, docs/tcp.md); a 64 MiB
  // transfer under other load was slower never yielding at all.
  const p2p::SpinYield yield = oversubscribed ? p2p::SpinYield::kAlways
                               : poll_quic    ? (tcp_ ? p2p::SpinYield::kAfterSpin : p2p::SpinYield::kAfterHard)
                                              : p2p::SpinYield::kNever;
  engine_->waiter().configure(shm_ ? shm_->user_bell() : nullptr, progress_.get(), spin_ns, yield, progress_.get());
  // Unbound, the ranks that wake each other gather on one core (core/core_home.h): a wait on
  // a socket takes its thread back to this rank's own core, one per rank of the machine
  // (namespace "hosts" of one machine share its cores). With more ranks here than cores the
  // ranks that yield to each other gather too (4 on 2 cores take turns on one core, a call
  // costing four turns: a torch 4 B all_reduce 56-104 us against 29-45 us with homes, C
  // 9.5-17 against 8.8-9.0, docs/benchmarks.md): a shared-memory wait takes its thread
  // back to its home (local index modulo the cores), the transports' threads stay put.
  const int home_cpu = param::NEXAR_WAIT_HOME.get() ? home_cpu_for(machine_index(host_ids_, info_.rank)) : -1;
  const int home = poll_quic && !oversubscribed ? home_cpu : -1;
  engine_->waiter().home().set(shm_ && oversubscribed ? home_cpu : home);
  if (endpoint_) endpoint_->set_home(home);
  if (tcp_) tcp_->set_home(home);
  if (engine_->waiter().home().cpu() >= 0)
    NX_INFO(INIT, "rank %d takes its waiting threads back to core %d", info_.rank, engine_->waiter().home().cpu());
  NX_INFO(INIT, "rank %d waits polling%s%s for %lld us%s", info_.rank, shm_ ? " shared memory" : "",
          poll_quic ? (tcp_ ? " the TCP sockets" : " the QUIC socket") : "", static_cast<long long>(spin_ns / 1000),
          oversubscribed                          ? " (yielding: more ranks than cores)"
          : yield == p2p::SpinYield::kAfterSpin   ? " (yielding the core only past that time)"
          : yield == p2p::SpinYield::kAfterHard   ? " (yielding now and then after 3 us)"
                                                  : "");
}

Status World::connect_mesh(const std::vector<std::string>& addresses) {
  // Shared memory for the ranks on this host (both sides decide alike from the tokens),
  // QUIC for the others; dial first so the handshakes overlap.
  // With NEXAR_CONNECT=lazy the QUIC links only learn the addresses here (shared memory
  // on this host stays eager: one inbox per rank, mapped at init).
  std::vector<bool> shm_peer;
  const auto deadline = p2p::Clock::now() + connect_timeout();
  for (int p = 0; p < info_.world_size; ++p) {
    auto* link = links_[static_cast<size_t>(p)].get();
    if (p == info_.rank || shm_candidate(p) || !link) continue;
    if (lazy_)
      static_cast<quic_link::QuicLink*>(link)->set_address(addresses[static_cast<size_t>(p)]);
    else if (p < info_.rank)
      NX_RETURN_IF_ERROR(link->dial(addresses[static_cast<size_t>(p)]));
  }
  NX_RETURN_IF_ERROR(start_shm(&shm_peer));
  configure_waiter();
  for (int p = 0; p < info_.world_size; ++p) {
    if (p == info_.rank) continue;
    const bool direct = shm_peer[static_cast<size_t>(p)] || links_[static_cast<size_t>(p)];
    if (!direct) {
      NX_INFO(INIT, "rank %d -> rank %d: relayed (NEXAR_TOPOLOGY=%s)", info_.rank, p, topology::name(topology_).c_str());
      continue;
    }
    NX_INFO(INIT, "rank %d -> rank %d: %s%s", info_.rank, p,
            shm_peer[static_cast<size_t>(p)] ? "shared memory" : tcp_ ? "TCP" : "QUIC",
            lazy_ && !shm_peer[static_cast<size_t>(p)] ? " on first use" : "");
    if (shm_peer[static_cast<size_t>(p)] || lazy_) continue;
    NX_RETURN_IF_ERROR(links_[static_cast<size_t>(p)]->wait_ready(deadline).with_context("forming the mesh"));
  }
  NX_INFO(INIT, "rank %d %s its peers (NEXAR_TOPOLOGY=%s, %d ranks)", info_.rank,
          lazy_ ? "connects on first use to" : "connected to", topology::name(topology_).c_str(), info_.world_size);
  watch_local_quic_peers();
  return Status::Ok();
}

void World::watch_local_quic_peers() {
  const auto me = static_cast<size_t>(info_.rank);
  shm::PeerWatch::Config wc;
  for (int p = 0; p < info_.world_size; ++p) {
    const auto i = static_cast<size_t>(p);
    if (p != info_.rank && links_[i] && !uses_shm(p) && host_ids_[i] == host_ids_[me] &&
        shm_tokens_[i].same_pids(shm_tokens_[me]))
      wc.peers.push_back(shm::WatchedPeer{p, shm_tokens_[i].pid, nullptr});
  }
  if (wc.peers.empty()) return;
  wc.lost = [this](int rank, bool, const Status& why) { links_[static_cast<size_t>(rank)]->peer_gone(why); };
  NX_INFO(NET, "rank %d watches the exit of %zu ranks on this host (pidfd): their QUIC connections end at once", info_.rank,
          wc.peers.size());
  quic_watch_ = std::make_unique<shm::PeerWatch>(std::move(wc));
}

Status World::shutdown(p2p::Clock::time_point deadline, bool broken) {
  if (closed_) return Status::Ok();
  closed_ = true;
  Status first;
  const int n = info_.world_size;
  // A sparse topology (the same on every rank): no goodbye while a message this rank
  // relays may still be on its way (relay_drain.h).
  if (!broken && !topology::complete(topology_, n)) {
    std::vector<int> direct;
    for (int p = 0; p < n; ++p)
      if (p != info_.rank && !engine_->is_lost(p) && (links_[static_cast<size_t>(p)] || uses_shm(p))) direct.push_back(p);
    first = drain_relays(*engine_, direct, drain_rounds(topology_, n), deadline);
    if (!first.ok()) NX_WARN(INIT, "rank %d: %s", info_.rank, first.to_string().c_str());
  }
  // Peers lost before (a shrunk world's dead ranks) have nothing to say goodbye to.
  std::vector<bool> lost(links_.size());
  for (size_t p = 0; p < links_.size(); ++p) lost[p] = engine_->is_lost(static_cast<int>(p));
  // A link never used (NEXAR_CONNECT=lazy) has nobody to say goodbye to.
  auto quic_peer = [&](size_t p) {
    return links_[p] && !uses_shm(static_cast<int>(p)) && !lost[p] && links_[p]->in_use();
  };
  NX_INFO(INIT, "%s at the end", connection_summary().c_str());
  if (!topology::complete(topology_, n)) NX_INFO(INIT, "%s", relay_summary().c_str());
  for (size_t p = 0; p < links_.size(); ++p)
    if (quic_peer(p)) links_[p]->send_bye();
  if (shm_) shm_->send_bye();
  for (size_t p = 0; p < links_.size(); ++p) {
    if (!quic_peer(p)) continue;
    Status st = broken ? links_[p]->wait_delivered(deadline) : links_[p]->wait_goodbye(deadline);
    if (first.ok() && !st.ok()) first = st;
  }
  // Shared memory needs no flush: a peer reads what this rank wrote after it exits.
  if (shm_ && !broken && !engine_->waiter().wait([&] { return shm_->goodbye_done(); }, deadline) && first.ok())
    first = Status(NEXAR_ERR_TIMEOUT, "ranks on this host did not finish their goodbye in time");
  for (auto& l : links_)
    if (l) l->close();
  return first;
}

std::string World::connection_summary() const {
  int net = 0, used = 0;
  for (size_t p = 0; p < links_.size(); ++p) {
    if (!links_[p] || uses_shm(static_cast<int>(p))) continue;
    ++net;
    if (links_[p]->in_use()) ++used;
  }
  return strprintf("rank %d: %d of %d network peers connected (%s, NEXAR_CONNECT=%s)", info_.rank, used, net,
                   tcp_ ? "TCP" : "QUIC", lazy_ ? "lazy" : "eager");
}

std::string World::relay_summary() const {
  if (topology::complete(topology_, info_.world_size)) return "";
  const p2p::Engine::RelayStats rs = engine_->relay_stats();
  return strprintf("rank %d: relayed %llu bytes for others, at most %llu bytes on the way to one next hop in one "
                   "hop class (NEXAR_RELAY_BUDGET=%lld), fragments waited for credit %llu times", info_.rank,
                   static_cast<unsigned long long>(rs.forwarded_bytes), static_cast<unsigned long long>(rs.peak_in_flight),
                   static_cast<long long>(param::NEXAR_RELAY_BUDGET.get()), static_cast<unsigned long long>(rs.waited));
}

void World::on_comm_broken(const Status& why) {
  if (!hang_responder_ || (why.code() != NEXAR_ERR_TIMEOUT && why.code() != NEXAR_ERR_PEER_LOST)) return;
  if (endpoint_->on_progress_thread()) return;  // the thread that would carry the answers
  if (tcp_ && tcp_->on_thread()) return;        // it moves every rank's data: never held up
  // A timeout waits for the report: the others still wait where they hang. A lost peer
  // does not (nexrun itself reports a rank that died, before it stops the others; and a
  // job that recovers from it must not be held up).
  hang_responder_->request(strprintf("rank %d: %s", info_.rank, why.to_string().c_str()),
                           why.code() == NEXAR_ERR_TIMEOUT);
}

std::shared_ptr<comm::Comm> make_world_comm(const std::shared_ptr<World>& world, double timeout_s) {
  auto info = std::make_shared<comm::WorldInfo>();
  info->engine = &world->engine();
  info->host_ids = world->host_ids();
  info->host_cores = world->host_cores();
  info->topology = world->topology();
  info->owner = world;
  info->shm = world->shm_hub();
  info->ft = world->ft();
  info->ft->set_shm(world->shm_hub());
  info->contexts.reserve(0);
  info->contexts.reserve(comm::block_base(p2p::kControlContext));
  World* w = world.get();  // info->owner keeps it alive
  info->on_broken = [w](const Status& why) { w->on_comm_broken(why); };
  std::vector<int> members(static_cast<size_t>(world->info().world_size));
  for (size_t i = 0; i < members.size(); ++i) members[i] = static_cast<int>(i);
  return std::make_shared<comm::Comm>(info, 0, members, world->info().rank, timeout_s);
}

}  // namespace nexar::bootstrap
