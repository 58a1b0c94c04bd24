// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A communicator: a group of world ranks with private message spaces (context ids): one
// for user point-to-point, one for collectives, one for remote procedure calls, so they
// never mix. All communicators of a process share one engine and its links.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectives/choice_cache.h"
#include "comm/call_words.h"
#include "comm/coll_queue.h"
#include "comm/owned_calls.h"
#include "comm/passed_call.h"
#include "collectives/peer_pattern.h"
#include "comm/context_registry.h"
#include "core/topology.h"
#include "shm_coll/slot_area.h"
#include "p2p/engine.h"
#include "trace/comm_recorder.h"

namespace nexar::shm {
class ShmHub;
}

namespace nexar::comm {

namespace ft {
class Service;
}
namespace rpc {
class Service;
}

// What every communicator of the process shares: the engine and facts about the world.
struct WorldInfo {
  p2p::Engine* engine = nullptr;
  std::vector<std::string> host_ids;  // per world rank
  // Per world rank: CPUs the ranks of its host may use together (World::host_cores), the
  // same on every rank; empty: unknown (then each process counts its own, usable_cores).
  std::vector<int> host_cores;
  // NEXAR_TOPOLOGY: which world ranks hold a network link (others are relayed).
  topology::Topology topology;
  std::shared_ptr<void> owner;         // keeps the transports alive while a comm exists
  ContextRegistry contexts;            // context ids of this process's communicators
  shm::ShmHub* shm = nullptr;          // the ranks on this host, when shared memory is used
  ft::Service* ft = nullptr;           // fault-tolerant agreement (owned by the world)
  SlotAreaPool slot_areas;             // this process's shared-memory collective slot areas
  // Runs when a communicator breaks from an error (not nexar_comm_abort), on the thread
  // that broke it, before the peers are told: asks nexrun for a hang report (bounded).
  std::function<void(const Status& why)> on_broken;
};

class Comm {
 public:
  // members: world ranks in comm rank order; this process is members[my_rank]. ctx_base's
  // block of context ids must be reserved in world->contexts; the Comm releases it.
  Comm(std::shared_ptr<WorldInfo> world, uint32_t ctx_base, std::vector<int> members, int my_rank, double timeout_s);
  ~Comm();

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(members_.size()); }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  // True when every member shares this rank's host (and QUIC is not forced): its traffic
  // then moves through shared memory. Every member computes the same answer.
  bool single_host() const { return single_host_; }
  // CPUs the members' hosts offer their ranks: the fewest of any member's host (WorldInfo::
  // host_cores), alike on every member; 0 when unknown. The cost model's oversubscription
  // term uses it, so every member chooses the same algorithm.
  int cores() const { return cores_; }
  // What relaying costs each peer pattern among the members (collectives/peer_pattern.h):
  // 1 everywhere unless the world's topology leaves some members without a link between
  // them. Alike on every member (the graph and the hosts are).
  const coll::RouteStretch& routes() const { return routes_; }
  int world_rank_of(int r) const { return members_[static_cast<size_t>(r)]; }
  uint32_t p2p_context() const { return ctx_base_; }
  uint32_t coll_context() const { return ctx_base_ + 1; }
  uint32_t rpc_context() const { return ctx_base_ + 2; }
  // The remote procedure calls this rank serves (comm/rpc_service.h).
  rpc::Service& rpc() { return *rpc_; }
  p2p::Engine& engine() const { return *world_->engine; }
  const std::shared_ptr<WorldInfo>& world() const { return world_; }

  void set_timeout(double seconds) { timeout_s_ = seconds; }
  p2p::Clock::time_point deadline() const;

  // NEXAR_ERR_ABORTED once an earlier fatal error (or nexar_comm_abort) broke the comm,
  // NEXAR_ERR_REVOKED once a member revoked it. A peer's abort or revocation that arrived
  // while this rank was not in a call is noticed here too.
  Status check_usable() const {
    if (usable_now()) return Status::Ok();
    return check_usable_after_abort();
  }
  // check_usable's common case, three loads, no lock, no call: not broken, and no context
  // aborted since last looked. False says nothing (check_usable then looks closer).
  bool usable_now() const {
    return !is_broken_.load(std::memory_order_acquire) &&
           engine().abort_epoch() == seen_epoch_.load(std::memory_order_relaxed);
  }
  // Records s; a fatal error makes the communicator unusable and tells the peers.
  Status fail(const Status& s);
  void abort(const Status& why);
  // nexar_comm_revoke: every member's pending and later calls fail with NEXAR_ERR_REVOKED
  // (the engine passes the revocation on, see Engine::on_remote_abort).
  void revoke();
  bool revoked() const;

  // Point to point on the user context (peer and results in comm ranks).
  // aux / expect_aux: a collective's descriptor (see p2p::Engine).
  Status isend(uint32_t ctx, const void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out,
               uint64_t aux = 0);
  Status irecv(uint32_t ctx, void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out,
               const uint64_t* expect_aux = nullptr);
  // Waits for req until deadline; on timeout cancels it. Returns its status (fatal ones
  // recorded with fail()).
  Status wait(const p2p::RequestPtr& req, p2p::Clock::time_point deadline);
  int comm_rank_of_world(int world_rank) const;

  // The shared-memory collective slots (shm_coll/slot_area.h), nullptr where it has none.
  SlotArea* slot_area() const { return slots_.get(); }
  // A split or dup child (the areas its members agreed on) and a shrunk communicator (its
  // revoked parent's area) get theirs before their first collective.
  void set_slot_area(std::unique_ptr<SlotArea> a) { slots_ = std::move(a); }
  CollQueue& collectives() { return colls_; }
  // The last algorithm choice and call words per collective kind, and the last call that
  // passed its checks: touched only by the thread running this communicator's collective
  // (as next_collective_seq).
  coll::ChoiceCache& choice_cache() { return choices_; }
  CallWordsCache& call_words() { return call_words_; }
  PassedCallCache& passed_call() { return passed_call_; }
  // On a communicator of one rank, the calls its owning thread runs with no claim of the
  // collective queue (comm/owned_calls.h).
  OwnedCalls& owned_calls() { return owned_calls_; }
  // The flight recorder of this communicator's calls (trace/comm_recorder.h).
  trace::CommRecorder& recorder() { return recorder_; }
  // The sequence number of the next collective (every rank runs them in the same order).
  // Only the thread holding the collective queue calls it (its claim orders the calls),
  // so a load and a store do: no read-modify-write.
  uint32_t next_collective_seq() {
    const uint32_t s = coll_seq_.load(std::memory_order_relaxed);
    coll_seq_.store(s + 1, std::memory_order_relaxed);
    return s & ((1u << 20) - 1);
  }
  // How many communicators were made from this one (split and dup are collective, so every
  // member counts the same).
  uint32_t next_child_number() { return children_++; }
  // How many shrinks of this one were started (every survivor counts the same).
  uint32_t next_shrink_number() { return shrinks_++; }
  double timeout() const { return timeout_s_.load(); }
  const std::vector<int>& members() const { return members_; }

 private:
  std::shared_ptr<WorldInfo> world_;
  const uint32_t ctx_base_;
  const std::vector<int> members_;
  std::vector<int> world_to_comm_;
  const int rank_;
  int local_rank_ = 0, local_size_ = 1;
  bool single_host_ = false;
  int cores_ = 0;
  coll::RouteStretch routes_;
  std::atomic<double> timeout_s_;
  mutable std::mutex mu_;
  Status broken_;
  std::atomic<bool> is_broken_{false};  // broken_ is set (read without the lock)
  bool revoked_ = false;                // under mu_
  // check_usable once the communicator is broken or some context was aborted since seen_epoch_.
  Status check_usable_after_abort() const;
  mutable std::atomic<uint64_t> seen_epoch_{0};  // the engine's abort epoch last found harmless
  std::atomic<uint32_t> coll_seq_{0};
  coll::ChoiceCache choices_;
  CallWordsCache call_words_;
  PassedCallCache passed_call_;
  OwnedCalls owned_calls_;
  std::atomic<uint32_t> children_{0};
  std::atomic<uint32_t> shrinks_{0};
  std::unique_ptr<SlotArea> slots_;
  trace::CommRecorder recorder_;  // outlives colls_ (whose worker may still record)
  CollQueue colls_;
  std::unique_ptr<rpc::Service> rpc_;  // made last, stopped first
};

bool is_fatal(nexar_result_t code);

}  // namespace nexar::comm
