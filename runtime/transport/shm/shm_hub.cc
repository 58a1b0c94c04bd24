// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// ShmHub: creating this rank's inbox, the handshake with the ranks on this host, and the
// progress (waiting threads' polls, the background thread, dead peers).
#include "transport/shm/shm_hub.h"

#include <poll.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "core/log.h"
#include "core/thread_name.h"
#include "core/params.h"
#include "transport/shm/cma.h"

namespace nexar::shm {
namespace {
constexpr int64_t kBackgroundTickNs = 200 * 1000 * 1000;  // the background thread looks at least this often
constexpr int64_t kBusyRetryNs = 1000 * 1000;  // a user thread holds the poll lock: look again this soon
constexpr int64_t kWatchTickNs = 100 * 1000 * 1000;  // heartbeats, and silence measured in these
constexpr size_t kInboxBudget = 32u << 20;
constexpr size_t kMinRing = 64u << 10;

size_t pow2_at_least(size_t n) {
  size_t p = 4096;
  while (p < n) p <<= 1;
  return p;
}
}  // namespace

Status ShmHub::create(const HubConfig& in, transport::PlacementSink* sink, std::unique_ptr<ShmHub>* out) {
  HubConfig cfg = in;
  cfg.ring_bytes = pow2_at_least(cfg.ring_bytes);
  if (cfg.coll_inline == SIZE_MAX)
    cfg.coll_inline = static_cast<size_t>(std::max<int64_t>(0, param::NEXAR_SHM_COLL_INLINE.get()));
  if (cfg.peer_timeout_s <= 0) cfg.peer_timeout_s = param::NEXAR_PEER_TIMEOUT.get();
  cfg.coll_inline = std::min(cfg.coll_inline, kCollInlineMax);
  // At most kInboxBudget per inbox: with many ranks per host the rings shrink (to 64 KiB).
  const size_t peers = cfg.local_ranks.size() > 1 ? cfg.local_ranks.size() - 1 : 1;
  while (cfg.ring_bytes > kMinRing && cfg.ring_bytes * peers > kInboxBudget) cfg.ring_bytes /= 2;
  const size_t max_record = cfg.ring_bytes / 4;
  cfg.eager_limit = std::min(cfg.eager_limit, max_record - 64);
  cfg.chunk = std::max<size_t>(4096, std::min(cfg.chunk, max_record - 64));
  std::unique_ptr<ShmHub> hub(new ShmHub(cfg, sink));
  for (int r : cfg.local_ranks)
    if (r != cfg.rank) hub->peers_.push_back(r);
  const auto nslots = static_cast<uint32_t>(hub->peers_.size());
  const Token& mine = cfg.tokens[static_cast<size_t>(cfg.rank)];
  NX_RETURN_IF_ERROR(Segment::create(mine.name, inbox_bytes(nslots, cfg.ring_bytes, cfg.coll_inline), &hub->own_)
                         .with_context("creating this rank's shared-memory inbox"));
  hub->inbox_.base = static_cast<uint8_t*>(hub->own_->base());
  while (::getrandom(&hub->probe_value_, sizeof(hub->probe_value_), 0) != sizeof(hub->probe_value_)) {
  }
  // The segment is zero-filled: construct the atomics in place, then publish the magic.
  auto* h = new (hub->inbox_.base) InboxHeader{};
  h->version = kInboxVersion;
  h->nslots = nslots;
  h->ring_bytes = cfg.ring_bytes;
  h->coll_inline = cfg.coll_inline;
  h->owner_rank = cfg.rank;
  h->owner_pid = ::getpid();
  h->probe_addr = reinterpret_cast<uint64_t>(&hub->probe_value_);
  h->probe_value = hub->probe_value_;
  for (uint32_t s = 0; s < nslots; ++s) new (hub->inbox_.slot(s)) SlotCtl{};
  for (uint32_t a = 0; a < kCollAreas; ++a) {
    CollSlot* cs = hub->inbox_.coll_slot(a);
    new (&cs->arrived) std::atomic<uint64_t>(0);
    new (&cs->block_done) std::atomic<uint64_t>(0);
    new (&cs->read_done) std::atomic<uint64_t>(0);
    new (&cs->left) std::atomic<uint64_t>(0);
  }
  h->magic.store(kInboxMagic, std::memory_order_release);
  hub->by_rank_.assign(cfg.tokens.size(), nullptr);
  *out = std::move(hub);
  return Status::Ok();
}

uint32_t ShmHub::slot_of(int owner, int writer) const {
  uint32_t s = 0;
  for (int r : cfg_.local_ranks) {
    if (r == writer) return s;
    if (r != owner) ++s;
  }
  return s;
}

Status ShmHub::exited(const std::vector<int>& ranks) const {
  for (int p : ranks) {
    const pid_t pid = cfg_.tokens[static_cast<size_t>(p)].pid;
    if (::kill(pid, 0) != 0 && errno == ESRCH)
      return Status(NEXAR_ERR_PEER_LOST,
                    strprintf("rank %d (pid %d, same host) exited while the ranks on this host joined", p, static_cast<int>(pid)));
  }
  return Status::Ok();
}

Status ShmHub::open_peer(int peer, std::chrono::steady_clock::time_point deadline, std::unique_ptr<Segment>* out) {
  const Token& t = cfg_.tokens[static_cast<size_t>(peer)];
  const auto nslots = static_cast<uint32_t>(cfg_.local_ranks.size() - 1);
  const size_t need = inbox_bytes(nslots, cfg_.ring_bytes, cfg_.coll_inline);
  for (;;) {
    bool absent = false;
    NX_RETURN_IF_ERROR(Segment::open(t.name, need, out, &absent).with_context(strprintf("rank %d's inbox", peer)));
    if (!absent) {
      auto* h = reinterpret_cast<InboxHeader*>((*out)->base());
      if (h->magic.load(std::memory_order_acquire) == kInboxMagic) {
        if (h->version != kInboxVersion || h->nslots != nslots || h->ring_bytes != cfg_.ring_bytes ||
            h->coll_inline != cfg_.coll_inline || h->owner_rank != peer || h->owner_pid != t.pid)
          return Status(NEXAR_ERR_PROTOCOL,
                        strprintf("rank %d's inbox %s has another layout (version %u, %u slots, %llu-byte rings, "
                                  "%llu-byte collective slots, rank %d, pid %d): are NEXAR_SHM_* the same on every rank?",
                                  peer, t.name.c_str(), h->version, h->nslots,
                                  static_cast<unsigned long long>(h->ring_bytes),
                                  static_cast<unsigned long long>(h->coll_inline), h->owner_rank, h->owner_pid));
        return Status::Ok();
      }
      out->reset();
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d's shared-memory inbox %s did not appear in time", peer,
                                                 t.name.c_str()));
    NX_RETURN_IF_ERROR(exited({peer}));
    ::usleep(200);
  }
}

Status ShmHub::connect(std::chrono::steady_clock::time_point deadline) {
  peer_segs_.resize(peers_.size());
  for (size_t i = 0; i < peers_.size(); ++i) {
    const int p = peers_[i];
    NX_RETURN_IF_ERROR(open_peer(p, deadline, &peer_segs_[i]));
    InboxView theirs{static_cast<uint8_t*>(peer_segs_[i]->base())};
    // May we read the peer's memory (then we fetch its large messages ourselves)?
    can_read_.push_back(cfg_.allow_cma && cma_probe(cfg_.tokens[static_cast<size_t>(p)].pid,
                                                   theirs.hdr()->probe_addr, theirs.hdr()->probe_value));
    theirs.hdr()->mapped.fetch_add(1, std::memory_order_release);
    transport::futex_wake_all(&theirs.hdr()->mapped);
  }
  // Every peer mapped our inbox: its name can go.
  const auto want = static_cast<uint32_t>(peers_.size());
  for (;;) {
    const uint32_t m = inbox_.hdr()->mapped.load(std::memory_order_acquire);
    if (m >= want) break;
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0)
      return Status(NEXAR_ERR_TIMEOUT, strprintf("only %u of the %u ranks on this host mapped this rank's inbox in time",
                                                 m, want));
    NX_RETURN_IF_ERROR(exited(peers_));
    transport::futex_wait(&inbox_.hdr()->mapped, m, std::min<int64_t>(left, 100 * 1000 * 1000));
  }
  own_->unlink();
  by_rank_view_.assign(cfg_.tokens.size(), InboxView{});
  by_rank_view_[static_cast<size_t>(cfg_.rank)] = inbox_;
  cma_all_ = true;
  for (size_t i = 0; i < peers_.size(); ++i) {
    by_rank_view_[static_cast<size_t>(peers_[i])] = InboxView{static_cast<uint8_t*>(peer_segs_[i]->base())};
    cma_all_ = cma_all_ && can_read_[i];
  }
  for (size_t i = 0; i < peers_.size(); ++i) {
    const int p = peers_[i];
    LinkConfig lc;
    lc.self_rank = cfg_.rank;
    lc.peer = p;
    lc.peer_pid = cfg_.tokens[static_cast<size_t>(p)].pid;
    lc.sink = sink_;
    lc.mine = inbox_;
    lc.rx_slot = slot_of(cfg_.rank, p);
    lc.theirs = InboxView{static_cast<uint8_t*>(peer_segs_[i]->base())};
    lc.tx_slot = slot_of(p, cfg_.rank);
    lc.cma = can_read_[i];
    lc.eager_limit = cfg_.eager_limit;
    lc.chunk = cfg_.chunk;
    links_.push_back(std::make_unique<ShmLink>(lc));
    by_rank_[static_cast<size_t>(p)] = links_.back().get();
    NX_INFO(NET, "rank %d reaches rank %d over shared memory (its large messages: %s)", cfg_.rank, p,
            lc.cma ? "read by the receiver from the sender's memory (CMA)" : "copied through the ring");
  }
  bg_ = std::thread([this] { run_background(); });
  PeerWatch::Config wc;
  for (size_t i = 0; i < peers_.size(); ++i)
    wc.peers.push_back(WatchedPeer{peers_[i], cfg_.tokens[static_cast<size_t>(peers_[i])].pid,
                                   &by_rank_view_[static_cast<size_t>(peers_[i])].hdr()->heartbeat});
  wc.own_heartbeat = &inbox_.hdr()->heartbeat;
  wc.silence_s = cfg_.peer_timeout_s;
  wc.tick_ns = kWatchTickNs;
  wc.lost = [this](int rank, bool silent, const Status& why) { on_lost(rank, silent, why); };
  wc.leaving = [this](int rank) { return by_rank_[static_cast<size_t>(rank)]->bye_received(); };
  watch_ = std::make_unique<PeerWatch>(std::move(wc));
  return Status::Ok();
}

ShmHub::~ShmHub() {
  watch_.reset();  // reports nothing more
  if (bg_.joinable()) {
    stop_.store(true, std::memory_order_release);
    transport::ring(&inbox_.hdr()->bg);
    bg_.join();
  }
  links_.clear();  // fails (quietly) what was still pending
}

ShmLink* ShmHub::link(int world_rank) const {
  if (world_rank < 0 || static_cast<size_t>(world_rank) >= by_rank_.size()) return nullptr;
  return by_rank_[static_cast<size_t>(world_rank)];
}

bool ShmHub::poll() {
  std::unique_lock<std::mutex> lock(poll_mu_, std::try_to_lock);
  return lock.owns_lock() && poll_locked();
}

bool ShmHub::poll_locked() {
  bool moved = false;
  for (auto& l : links_)
    if (!l->dead() && l->poll()) moved = true;
  return moved;
}

void ShmHub::run_background() {
  name_this_thread("nexar-shm");
  transport::Doorbell* bell = &inbox_.hdr()->bg;
  for (;;) {
    const uint32_t s = transport::begin_sleep(bell);
    if (stop_.load(std::memory_order_acquire)) {
      transport::end_sleep(bell);
      return;
    }
    // Never waits for the lock: a user thread may hold it through a long read (CMA), and
    // it polls meanwhile anyway.
    int64_t next = kBusyRetryNs;
    if (poll_mu_.try_lock()) {
      poll_locked();
      if (any_lost_.load(std::memory_order_acquire)) fail_reported_locked();
      poll_mu_.unlock();
      next = kBackgroundTickNs;
    }
    transport::sleep(bell, s, next);
  }
}

void ShmHub::on_lost(int rank, bool silent, const Status& why) {
  {
    std::lock_guard<std::mutex> lock(lost_mu_);
    lost_.push_back(Lost{rank, silent, why});
  }
  any_lost_.store(true, std::memory_order_release);
  transport::ring(&inbox_.hdr()->bg);
}

void ShmHub::fail_reported_locked() {
  std::vector<Lost> lost;
  {
    std::lock_guard<std::mutex> lock(lost_mu_);
    lost.swap(lost_);
    any_lost_.store(false, std::memory_order_relaxed);
  }
  for (const Lost& x : lost) {
    ShmLink* l = by_rank_[static_cast<size_t>(x.rank)];
    if (l->dead()) continue;
    // What an exited peer sent before it went is still good: deliver it first. A peer
    // declared failed for its silence is not heard any more (fail-stop).
    if (!x.silent)
      for (int n = 0; n < 1000 && l->poll(); ++n) {
      }
    l->fail(x.why);
  }
  transport::ring(&inbox_.hdr()->user);  // a thread waiting in a shared-slot collective checks alive()
}

void ShmHub::send_bye() {
  for (auto& l : links_) l->send_bye();
}

bool ShmHub::goodbye_done() {
  for (auto& l : links_)
    if (!l->goodbye_done()) return false;
  return true;
}

}  // namespace nexar::shm
