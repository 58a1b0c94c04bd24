// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Fault-tolerant agreement (nexar_comm_agree, and through it nexar_comm_shrink and
// nexar_comm_rebuild), one service per process over the engine's control context, which
// is never aborted: it works on revoked and broken communicators.
//
// Per communicator (known by its context base, the same on every member) the service keeps
// the comm ranks known failed (the engine's lost peers, and what other members report: a
// rank one member declares failed is fenced by all, its later messages ignored) and the
// agreements: instance k is the k-th agreement on that communicator; every member runs
// them in the same order.
//
// Instance k: the coordinator is the lowest comm rank not known failed. Members send it
// CONTRIB (flag, failed set); it waits for every member not known failed, then decides
// D = (AND of their flags, the failed set) and sends DECIDE to each. A member that finds
// its coordinator failed sends its contribution to the next one. A coordinator with a
// failed rank below it (it may not be the first) first sends QUERY to every member: a
// member answers with the decision it holds, else with its contribution; the coordinator
// adopts a decision someone holds, else decides afresh. A member answers a QUERY only
// after fencing every rank below the querier, so a decision of an earlier coordinator
// that it accepts later cannot exist. Decisions are kept (64 instances back) to answer
// QUERYs and late CONTRIBs after the member left the call.
//
// Handlers run on the thread that delivers (transport progress thread, shared-memory
// background thread, or a user thread polling): short, under one lock; messages are sent
// after it is released. Waiting callers poll the transports through the engine's waiter.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "comm/ft_wire.h"
#include "p2p/engine.h"

namespace nexar::shm {
class ShmHub;
}

namespace nexar::comm::ft {

struct Decision {
  int32_t flag = 0;
  std::vector<int> failed;  // comm ranks, ascending
};

class Service final : public p2p::ControlHandler {
 public:
  explicit Service(p2p::Engine* engine);
  ~Service() override;
  // Ranks on this host get a ring of their background thread with each message, so that
  // a rank outside any call answers at once (set once, before use).
  void set_shm(shm::ShmHub* hub) { hub_.store(hub, std::memory_order_release); }

  // A communicator joins or leaves (members: world ranks in comm order). One that ran
  // agreements keeps its decisions after leaving, to answer members still deciding.
  void attach(uint32_t comm_id, const std::vector<int>& members, int my_rank);
  void detach(uint32_t comm_id);

  // The next agreement on comm_id: every live member gets the same *out. Returns
  // NEXAR_ERR_TIMEOUT at deadline, NEXAR_ERR_PEER_LOST when the others declared this rank
  // failed.
  Status agree(uint32_t comm_id, int32_t flag, p2p::Clock::time_point deadline, Decision* out);
  // Comm ranks known failed here, ascending.
  std::vector<int> failed(uint32_t comm_id);

  // p2p::ControlHandler
  void on_control(int src, const uint8_t* data, size_t bytes) override;
  void on_lost(int world_rank) override;

 private:
  struct Instance {
    bool entered = false;  // this rank called agree for it
    int32_t flag = 0;
    int sent_to = -1;      // the coordinator our contribution went to
    bool queried = false;  // as coordinator, QUERY sent
    std::map<int, int32_t> contribs;  // comm rank -> flag
    bool decided = false;
    Decision d;
  };
  struct CommFt {
    bool attached = false;
    bool retired = false;  // its Comm is gone: only answers with the decisions it holds
    std::vector<int> members;  // world ranks
    std::unordered_map<int, int> comm_rank;  // world -> comm rank
    int me = -1;
    std::vector<bool> failed;
    int excluded_by = -1;  // a member that declared this rank failed
    uint32_t next_instance = 0;
    std::map<uint32_t, Instance> inst;
    std::vector<std::pair<int, Msg>> early;  // arrived before attach (bounded)
  };
  struct Out {
    int world_rank;
    Msg msg;
  };

  // fenced: world ranks this message newly reported failed (marked in every communicator
  // here; the caller tells the engine once the lock is released).
  void handle_locked(CommFt& c, int src_world, Msg& m, std::vector<Out>* out, std::vector<int>* fenced);
  void fail_world_locked(int world_rank, std::vector<Out>* out);
  void fence(const std::vector<int>& world_ranks, int reporter);
  // Marks comm rank r failed; true if it was not yet.
  bool mark_failed_locked(CommFt& c, int r);
  // Re-evaluates every open instance after something changed.
  void progress_locked(CommFt& c, uint32_t id, std::vector<Out>* out);
  int coordinator_locked(const CommFt& c) const;
  std::vector<int32_t> failed_list_locked(const CommFt& c) const;
  void decide_locked(CommFt& c, uint32_t id, uint32_t k, Instance& in, std::vector<Out>* out);
  void send_all(std::vector<Out>& out);

  p2p::Engine* const engine_;
  std::atomic<shm::ShmHub*> hub_{nullptr};  // set while transports may already deliver
  std::mutex mu_;
  std::unordered_map<uint32_t, CommFt> comms_;
};

}  // namespace nexar::comm::ft
