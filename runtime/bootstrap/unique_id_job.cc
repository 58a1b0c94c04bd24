// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/unique_id_job.h"

#include <gnutls/crypto.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "bootstrap/address_select.h"
#include "bootstrap/unique_id_join.h"
#include "core/log.h"
#include "core/params.h"
#include "rendezvous/host.h"
#include "rendezvous/service.h"
#include "transport/tls/cert_issue.h"
#include "transport/tls/tls_context.h"

namespace nexar::bootstrap {
namespace {

// The rendezvous this process serves, by job id, until a world formed with it takes it
// (or the process exits).
struct Hosts {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<rendezvous::Host>> by_job;
};
Hosts* g_hosts = nullptr;

// How long an exiting maker whose world never formed keeps serving processes that are
// still inside their join (they then read the job's failure by name, not a lost rendezvous).
constexpr std::chrono::seconds kJoinersGrace{3};

// Waits, up to deadline, until no process is inside its join of host's job.
void serve_joiners(rendezvous::Host& host, std::chrono::steady_clock::time_point deadline) {
  using namespace std::chrono_literals;
  while (std::chrono::steady_clock::now() < deadline) {
    auto settled = std::make_shared<std::atomic<int>>(-1);  // -1: not answered yet
    host.server().post(
        [settled](rendezvous::Service& s) { settled->store(unique_id_joins_settled(s.store()) ? 1 : 0); });
    while (settled->load() < 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(2ms);
    if (settled->load() == 1) return;
    std::this_thread::sleep_for(10ms);
  }
  NX_WARN(BOOT, "the rendezvous of a unique id stops with processes still joining (they see it lost)");
}

void stop_hosts_at_exit() {
  // Before static destructors run: the endpoints' threads use the logger.
  std::map<std::string, std::shared_ptr<rendezvous::Host>> gone;
  {
    std::lock_guard<std::mutex> lock(g_hosts->mu);
    gone.swap(g_hosts->by_job);
  }
  const auto deadline = std::chrono::steady_clock::now() + kJoinersGrace;
  for (auto& entry : gone) serve_joiners(*entry.second, deadline);
}

Hosts& hosts() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_hosts = new Hosts();
    std::atexit(stop_hosts_at_exit);
  });
  return *g_hosts;
}

Status rendezvous_ip(std::string* ip) {
  if (!param::NEXAR_ADDR.get().empty() || !param::NEXAR_IFACE.get().empty() ||
      !param::NEXAR_ADDR_CIDR.get().empty())
    return select_address_from_params("", ip);
  // Peers may be on other hosts: an address they can reach, as NCCL's default interface.
  std::vector<std::string> mine = interface_addresses("", "");
  *ip = mine.empty() ? "127.0.0.1" : mine.front();
  return Status::Ok();
}

Status party_pem(const tls::IssuedCa& ca, const std::string& job_id, int rank, std::string* pem) {
  std::string ca_pem;
  NX_RETURN_IF_ERROR(tls::export_pem(ca.crt.h, &ca_pem));
  return tls::issue_party_pem(ca, ca_pem, job_id, rank, pem);
}

}  // namespace

Status make_unique_id(UniqueId* out) {
  unsigned char rnd[8];
  if (gnutls_rnd(GNUTLS_RND_RANDOM, rnd, sizeof(rnd)) < 0) return Status(NEXAR_ERR_SYSTEM, "no random bytes for a job id");
  UniqueId id;
  id.job_id = "uid-";
  for (unsigned char b : rnd) id.job_id += strprintf("%02x", b);
  tls::IssuedCa ca;
  NX_RETURN_IF_ERROR(tls::issue_ca(id.job_id, &ca));
  NX_RETURN_IF_ERROR(tls::export_key_der(ca.key, &id.ca_key_der));
  std::string pem;
  NX_RETURN_IF_ERROR(party_pem(ca, id.job_id, tls::kLauncherRank, &pem));
  std::shared_ptr<tls::Context> tls;
  NX_RETURN_IF_ERROR(tls::Context::from_pem(pem, "the rendezvous credential of job " + id.job_id, &tls));
  std::string ip;
  NX_RETURN_IF_ERROR(rendezvous_ip(&ip).with_context("choosing the rendezvous address"));
  std::unique_ptr<rendezvous::Host> host;
  NX_RETURN_IF_ERROR(rendezvous::Host::start(tls, ip, nullptr, &host));
  id.rendezvous = host->address();
  NX_INFO(BOOT, "job %s: this process serves the rendezvous at %s", id.job_id.c_str(), id.rendezvous.c_str());
  Hosts& h = hosts();
  {
    std::lock_guard<std::mutex> lock(h.mu);
    h.by_job[id.job_id] = std::move(host);
  }
  *out = std::move(id);
  return Status::Ok();
}

Status unique_id_launch(const UniqueId& id, int rank, int size, LaunchInfo* out) {
  if (size < 1) return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("size %d must be at least 1", size));
  if (rank < 0 || rank >= size)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("rank %d is outside [0, %d) (size %d)", rank, size, size));
  LaunchInfo li;
  li.singleton = size == 1;
  li.rank = rank;
  li.world_size = size;
  li.local_size = 0;  // the world counts ranks per host identity itself
  li.job_id = id.job_id;
  li.rendezvous = id.rendezvous;
  li.unique_id_join = true;
  tls::IssuedCa ca;
  NX_RETURN_IF_ERROR(tls::ca_from_key(id.ca_key_der, id.job_id, &ca).with_context("the unique id's CA key"));
  NX_RETURN_IF_ERROR(party_pem(ca, id.job_id, rank, &li.credential_pem));
  {
    Hosts& h = hosts();
    std::lock_guard<std::mutex> lock(h.mu);
    auto it = h.by_job.find(id.job_id);
    if (it != h.by_job.end()) li.rendezvous_host = it->second;
  }
  *out = std::move(li);
  return Status::Ok();
}

void unique_id_world_formed(const std::string& job_id) {
  Hosts& h = hosts();
  std::lock_guard<std::mutex> lock(h.mu);
  h.by_job.erase(job_id);
}

}  // namespace nexar::bootstrap
