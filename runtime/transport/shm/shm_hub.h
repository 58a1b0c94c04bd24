// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The shared-memory side of one process: its inbox (inbox.h), the inboxes of the ranks on
// its host, one ShmLink per such rank, and the progress around them:
//  - poll(): waiting threads drain the rings themselves (no hand-off on the fast path);
//  - a background thread, asleep on the inbox's `bg` doorbell, drains and pushes when no
//    user thread does (a peer whose ring is full rings it), and fails the links of peers
//    the watch reported;
//  - a peer watch (peer_watch.h): a peer's exit is known at once (pidfd), a peer whose
//    heartbeat stood still for NEXAR_PEER_TIMEOUT (stopped, hung) is killed and declared
//    failed; it beats this rank's heartbeat.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/shm/inbox.h"
#include "transport/shm/peer_watch.h"
#include "transport/progress.h"
#include "transport/shm/segment.h"
#include "transport/shm/shm_link.h"
#include "transport/shm/token.h"

namespace nexar::shm {

struct HubConfig {
  int rank = -1;
  std::vector<int> local_ranks;    // world ranks on this host that use shm, sorted, with this rank
  std::vector<Token> tokens;       // per world rank (only the local ranks' are used)
  size_t ring_bytes = 256u << 10;  // per ring; rounded up to a power of two
  size_t eager_limit = 16384;
  size_t chunk = 65536;
  bool allow_cma = true;
  // Inline payload of each collective slot buffer; create() reads NEXAR_SHM_COLL_INLINE
  // when this is left at its default (SIZE_MAX).
  size_t coll_inline = SIZE_MAX;
  // Seconds of heartbeat silence after which a peer is declared failed; create() reads
  // NEXAR_PEER_TIMEOUT when this is left at 0.
  double peer_timeout_s = 0;
};

class ShmHub final : public transport::Progress {
 public:
  // Creates this rank's inbox under cfg.tokens[cfg.rank].name.
  static Status create(const HubConfig& cfg, transport::PlacementSink* sink, std::unique_ptr<ShmHub>* out);
  // Maps every local peer's inbox, waits until they all mapped ours, then removes the
  // name, makes the links and starts the background thread.
  Status connect(std::chrono::steady_clock::time_point deadline);
  ~ShmHub() override;

  ShmLink* link(int world_rank) const;
  const std::vector<int>& peers() const { return peers_; }
  transport::Doorbell* user_bell() { return &inbox_.hdr()->user; }

  // The collective slots (shm_coll/coll_slot.h), by world rank; valid for this rank and its local
  // peers once connect() returned. Inline: the communicator layer uses them on every call.
  size_t coll_inline() const { return cfg_.coll_inline; }
  CollSlot* coll_slot(int world_rank, uint32_t area) const {
    return by_rank_view_[static_cast<size_t>(world_rank)].coll_slot(area);
  }
  transport::Doorbell* user_bell_of(int world_rank) const { return &by_rank_view_[static_cast<size_t>(world_rank)].hdr()->user; }
  pid_t pid_of(int world_rank) const { return cfg_.tokens[static_cast<size_t>(world_rank)].pid; }
  // Whether world_rank is this rank or a local peer not known dead.
  bool alive(int world_rank) const {
    const ShmLink* l = by_rank_[static_cast<size_t>(world_rank)];
    return world_rank == cfg_.rank || (l && !l->dead());
  }
  // Rings a local peer's background thread: it drains its rings now, even when none of its
  // threads waits (fault-tolerance control messages must be answered at once).
  void wake_background(int world_rank) const {
    if (link(world_rank)) transport::ring(&by_rank_view_[static_cast<size_t>(world_rank)].hdr()->bg);
  }
  // Whether this rank may read every local peer's memory (CMA).
  bool cma_to_all() const { return cma_all_; }
  const std::vector<int>& local_ranks() const { return cfg_.local_ranks; }

  // Progress
  bool poll() override;

  // Goodbye: BYE to every peer; done once every peer said BYE (or died).
  void send_bye();
  bool goodbye_done();

 private:
  ShmHub(const HubConfig& cfg, transport::PlacementSink* sink) : cfg_(cfg), sink_(sink) {}
  uint32_t slot_of(int owner, int writer) const;  // writer's slot in owner's inbox
  Status open_peer(int peer, std::chrono::steady_clock::time_point deadline, std::unique_ptr<Segment>* out);
  // NEXAR_ERR_PEER_LOST naming the first of `ranks` whose process is gone (connect waits
  // for it no longer: a rank that died while the ranks on this host join, e.g. during a
  // rebuild), else ok.
  Status exited(const std::vector<int>& ranks) const;
  bool poll_locked();
  void run_background();
  // The watch reported peer `rank` (its thread): the background thread fails its link.
  void on_lost(int rank, bool silent, const Status& why);
  void fail_reported_locked();

  const HubConfig cfg_;
  transport::PlacementSink* const sink_;
  std::unique_ptr<Segment> own_;
  InboxView inbox_;
  uint64_t probe_value_ = 0;  // its address is in our header: peers test CMA with it
  std::vector<int> peers_;    // local ranks but this one
  std::vector<std::unique_ptr<Segment>> peer_segs_;
  std::vector<std::unique_ptr<ShmLink>> links_;  // parallel to peers_
  std::vector<bool> can_read_;                   // parallel to peers_: CMA works on it
  std::vector<ShmLink*> by_rank_;
  std::vector<InboxView> by_rank_view_;  // this rank's and its local peers' inboxes
  bool cma_all_ = false;

  std::mutex poll_mu_;
  std::thread bg_;
  std::atomic<bool> stop_{false};
  std::mutex lost_mu_;  // guards lost_
  struct Lost {
    int rank;
    bool silent;
    Status why;
  };
  std::vector<Lost> lost_;  // reported by the watch, links not yet failed
  std::atomic<bool> any_lost_{false};
  std::unique_ptr<PeerWatch> watch_;
};

}  // namespace nexar::shm
