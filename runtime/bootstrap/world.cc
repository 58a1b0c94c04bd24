#include "bootstrap/world.h"

#include "bootstrap/address_select.h"
#include "bootstrap/host_identity.h"
#include "core/log.h"
#include "core/params.h"

namespace nexar::bootstrap {

namespace {
std::chrono::milliseconds connect_timeout() {
  return std::chrono::milliseconds(static_cast<int64_t>(params::get_double("NEXAR_CONNECT_TIMEOUT") * 1000));
}
}  // namespace

World::World(const LaunchInfo& info) : info_(info) {
  engine_ = std::make_unique<p2p::Engine>(info.rank, info.world_size,
                                          static_cast<size_t>(params::get_int("NEXAR_UNEXPECTED_LIMIT")));
  self_link_ = std::make_unique<p2p::SelfLink>(engine_.get(), info.rank);
  engine_->set_link(info.rank, self_link_.get());
  host_ids_.assign(static_cast<size_t>(info.world_size), "");
  host_ids_[static_cast<size_t>(info.rank)] = host_identity();
}

World::~World() {
  // Order matters: the endpoint's thread calls into links, links into the engine.
  rendezvous_.reset();
  endpoint_.reset();
  links_.clear();
}

Status World::create(const LaunchInfo& info, std::shared_ptr<World>* out) {
  std::shared_ptr<World> w(new World(info));
  if (!info.singleton && info.world_size > 1) {
    NX_RETURN_IF_ERROR(w->start_endpoint());
    std::vector<std::string> addresses;
    NX_RETURN_IF_ERROR(w->exchange_addresses(&addresses));
    NX_RETURN_IF_ERROR(w->connect_mesh(addresses));
  }
  *out = std::move(w);
  return Status::Ok();
}

Status World::start_endpoint() {
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
  NX_INFO(NET, "rank %d listening on %s", info_.rank, endpoint_->local_address().c_str());
  for (int p = 0; p < info_.world_size; ++p) {
    links_.emplace_back(p == info_.rank ? nullptr
                                        : new quic_link::QuicLink(info_.rank, info_.world_size, p, engine_.get(),
                                                                  endpoint_.get()));
    if (p != info_.rank) engine_->set_link(p, links_.back().get());
  }
  // Higher ranks dial lower ones; an accepted connection must come from a higher rank.
  endpoint_->set_accept_handler([this](quic::Connection& conn) -> quic::Application* {
    const int r = conn.peer().rank;
    if (r <= info_.rank || r >= info_.world_size) {
      NX_WARN(NET, "refusing a connection from %s: not a rank that dials this one", conn.peer().to_string().c_str());
      return nullptr;
    }
    quic_link::QuicLink* link = links_[static_cast<size_t>(r)].get();
    return link->adopt(conn) ? link : nullptr;
  });
  return Status::Ok();
}

Status World::exchange_addresses(std::vector<std::string>* addresses) {
  const auto timeout = connect_timeout();
  NX_RETURN_IF_ERROR(rendezvous::Client::connect(endpoint_.get(), info_.rendezvous, timeout, &rendezvous_)
                         .with_context("reaching the rendezvous at " + info_.rendezvous));
  const std::string mine = endpoint_->local_address() + " " + host_ids_[static_cast<size_t>(info_.rank)];
  NX_RETURN_IF_ERROR(rendezvous_->set("addr/" + std::to_string(info_.rank), mine, timeout));
  addresses->assign(static_cast<size_t>(info_.world_size), "");
  for (int p = 0; p < info_.world_size; ++p) {
    if (p == info_.rank) continue;
    std::string v;
    NX_RETURN_IF_ERROR(rendezvous_->wait("addr/" + std::to_string(p), &v, timeout)
                           .with_context(strprintf("waiting for rank %d's address", p)));
    size_t sp = v.find(' ');
    if (sp == std::string::npos)
      return Status(NEXAR_ERR_PROTOCOL, strprintf("malformed address entry for rank %d: '%s'", p, v.c_str()));
    (*addresses)[static_cast<size_t>(p)] = v.substr(0, sp);
    host_ids_[static_cast<size_t>(p)] = v.substr(sp + 1);
  }
  return Status::Ok();
}

Status World::connect_mesh(const std::vector<std::string>& addresses) {
  for (int p = 0; p < info_.rank; ++p) NX_RETURN_IF_ERROR(links_[static_cast<size_t>(p)]->dial(addresses[static_cast<size_t>(p)]));
  const auto deadline = p2p::Clock::now() + connect_timeout();
  for (int p = 0; p < info_.world_size; ++p) {
    if (p == info_.rank) continue;
    NX_RETURN_IF_ERROR(links_[static_cast<size_t>(p)]->wait_ready(deadline).with_context("forming the mesh"));
  }
  NX_INFO(INIT, "rank %d connected to all %d peers", info_.rank, info_.world_size - 1);
  return Status::Ok();
}

Status World::shutdown(p2p::Clock::time_point deadline) {
  if (closed_) return Status::Ok();
  closed_ = true;
  Status first;
  for (auto& l : links_)
    if (l) l->send_bye();
  for (auto& l : links_) {
    if (!l) continue;
    Status st = l->wait_goodbye(deadline);
    if (first.ok() && !st.ok()) first = st;
  }
  for (auto& l : links_)
    if (l) l->close();
  return first;
}

std::shared_ptr<comm::Comm> make_world_comm(const std::shared_ptr<World>& world, double timeout_s) {
  auto info = std::make_shared<comm::WorldInfo>();
  info->engine = &world->engine();
  info->host_ids = world->host_ids();
  info->owner = world;
  info->contexts.reserve(0);
  std::vector<int> members(static_cast<size_t>(world->info().world_size));
  for (size_t i = 0; i < members.size(); ++i) members[i] = static_cast<int>(i);
  return std::make_shared<comm::Comm>(info, 0, members, world->info().rank, timeout_s);
}

}  // namespace nexar::bootstrap
