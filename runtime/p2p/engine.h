// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The point-to-point engine: MPI matching on (context, source, tag), messages from one
// peer in the order sent, posted receives filled straight from the transport, and a
// bounded store for messages that arrive before their receive (unexpected.h).
//
// Ranks here are world ranks; communicators translate. A rank that this one holds no link
// to (a sparse NEXAR_TOPOLOGY) is reached through the topology's next hop: engine_relay.cc.
// Thread-safe: user threads post
// operations, links deliver from their progress threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <string>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/topology.h"
#include "p2p/request.h"
#include "p2p/unexpected.h"
#include "p2p/waiter.h"
#include "transport/placement_sink.h"
#include "transport/transport.h"

namespace nexar::p2p {

namespace detail {
class OwnedSend;
struct CreditBack;
struct RelayPrefix;
struct SendGroup;
}  // namespace detail

// Tags on a collective context are (collective sequence number << kCollSeqShift) | step,
// which lets the engine tell which collective a message belongs to.
inline constexpr int kCollSeqShift = 11;

// The context of fault-tolerance control messages (comm/ft_agreement.h): never aborted,
// never matched; its arrivals go to the control handler. Its block of ids is reserved in
// every process's context registry (comm/context_registry.h).
inline constexpr uint32_t kControlContext = 0xFFFFFFFEu;
// The context of messages relayed toward a rank without a link (engine_relay.cc): each
// carries its original source, destination and header in front of its payload. In the
// same reserved block as kControlContext.
inline constexpr uint32_t kRelayContext = 0xFFFFFFFDu;
// The context of a sparse world's lost-rank notices (engine_faults.cc): a rank that loses
// a link floods "rank X was lost" over its direct links, so that ranks holding none to X
// learn it too. In the same reserved block as kControlContext.
inline constexpr uint32_t kLostNoticeContext = 0xFFFFFFFFu;
// The bytes that prefix go in front of each relayed fragment's payload.
inline constexpr size_t kRelayPrefixBytes = 48;
// The tag on kRelayContext of a neighbour's credit for relayed fragments (fragments: 0).
inline constexpr int32_t kRelayCreditTag = 1;

// Receives control messages on the thread that delivers them (a transport's progress
// thread, or a user thread polling shared memory): must not block.
class ControlHandler {
 public:
  virtual ~ControlHandler() = default;
  virtual void on_control(int src, const uint8_t* data, size_t bytes) = 0;
  // World rank src was lost (called once per rank, after the engine noted it).
  virtual void on_lost(int src) = 0;
};

// Told when a message on its context finds no posted receive (it waits in the unexpected
// store): a server that receives on demand (comm/rpc_server.h) wakes on it instead of
// keeping a receive posted or polling. Called with the engine's lock held: must only
// note the fact and wake someone, never call the engine.
class ArrivalListener {
 public:
  virtual ~ArrivalListener() = default;
  virtual void on_arrival() = 0;
};

class Engine final : public transport::PlacementSink {
 public:
  Engine(int world_rank, int world_size, size_t unexpected_limit);
  ~Engine() override;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // How this engine's requests wait (configured by bootstrap when shared memory is used).
  Waiter& waiter() { return waiter_; }

  // Links, one per world rank this rank reaches directly (its own is the self link);
  // nullptr for a rank reached through others. Set before use.
  void set_link(int peer, transport::PeerLink* link);
  // The graph that routes messages to ranks without a link (core/topology.h). Set before
  // use, the same on every rank; without it every rank needs a link.
  void set_topology(const topology::Topology& t);
  // Relaying (engine_relay.cc): messages to ranks without a link travel in fragments of at
  // most fragment_bytes of payload (with their prefix, at most budget_bytes). A fragment
  // that crossed h links so far travels in hop class h; each neighbour grants this rank
  // budget_bytes of credit per class, taken back as it passes fragments on or delivers
  // them. Beyond it fragments wait here in order. Set before use.
  void set_relay_budget(uint64_t budget_bytes, size_t fragment_bytes);
  // What this rank relayed: bytes it forwarded for others, and the most bytes it ever had
  // on the way to one next hop in one class without that hop's credit back (never above
  // the budget). waited: times a fragment found its class's credit used up and waited.
  struct RelayStats {
    uint64_t forwarded_bytes = 0;
    uint64_t peak_in_flight = 0;
    uint64_t waited = 0;
  };
  RelayStats relay_stats();

  // Declares the world ranks of context ctx (for ANY_SOURCE failure and validation).
  void register_context(uint32_t ctx, std::vector<int> members);
  void unregister_context(uint32_t ctx);
  // Sets (or clears, nullptr) ctx's arrival listener; told at once when messages already
  // wait. After a clear returns it is never called again.
  void set_arrival_listener(uint32_t ctx, ArrivalListener* l);

  // Starts a send of bytes to world rank dst (aux: the collective's descriptor, or 0).
  // Fails at once if dst is lost or ctx aborted.
  Status isend(uint32_t ctx, int dst, int tag, const void* buf, size_t bytes, uint64_t aux, RequestPtr* out);
  // Posts a receive (src: world rank or NEXAR_ANY_SOURCE; tag or NEXAR_ANY_TAG). With
  // expect_aux, a message carrying another descriptor fails it with NEXAR_ERR_MISMATCH.
  Status irecv(uint32_t ctx, int src, int tag, void* buf, size_t capacity, const uint64_t* expect_aux,
               RequestPtr* out);
  // A scattering receive: the message fills regions in order (its capacity is their sum).
  Status irecvv(uint32_t ctx, int src, int tag, std::vector<iovec> regions, RequestPtr* out);
  // This rank waits for something from world rank peer outside a posted receive (an
  // agreement's votes): its link connects if it connects on first use (PeerLink::expect).
  void expect_from(int peer);

  // A message that is here or arriving (its header arrived) and not received yet.
  struct Probed {
    int src = -1;  // world rank
    int tag = -1;
    uint64_t bytes = 0;
  };
  // Finds the oldest such message on ctx matching (src, tag) without receiving it: a
  // receive posted next with the same (or the found) source and tag gets that message.
  // *found says whether there is one. Fails as a receive would: ctx aborted or revoked,
  // src lost.
  Status iprobe(uint32_t ctx, int src, int tag, bool* found, Probed* out);
  // Waits for one until deadline (then NEXAR_ERR_TIMEOUT); with NEXAR_ANY_SOURCE, a member
  // of ctx lost meanwhile fails it, as it fails a posted receive from any source.
  Status probe(uint32_t ctx, int src, int tag, Clock::time_point deadline, Probed* out);

  // This rank is now running collective number seq with descriptor aux on ctx: a message
  // of the same collective with another descriptor (already here or arriving later) breaks
  // ctx with NEXAR_ERR_MISMATCH (described by describe) instead of leaving ranks waiting.
  using AuxDescriber = std::string (*)(uint64_t mine, uint64_t theirs, int their_world_rank, int my_world_rank);
  void set_collective(uint32_t ctx, uint32_t seq, uint64_t aux, AuxDescriber describe);
  // Abandons an unfinished request (after a timeout): its buffer is no longer touched
  // once this returns, and it completes with `why`.
  void cancel(const RequestPtr& req, const Status& why);

  // Marks ctx failed: pending receives on it fail with why, and so does every later
  // operation; peers are told (abort frame) when tell_peers.
  void abort_context(uint32_t ctx, const Status& why, bool tell_peers);
  // The status that made ctx unusable (ok() if none).
  Status context_status(uint32_t ctx);
  // Counts abort_context calls that changed a context and lost peers: a communicator
  // compares it with the value it last saw to notice a remote abort without taking the
  // lock. Each change also rings the waiter: threads asleep in it look again.
  uint64_t abort_epoch() const { return abort_epoch_.load(std::memory_order_acquire); }

  // Fault-tolerance control channel: small messages (copied at once) to world rank dst,
  // best effort (dropped when dst is lost); arrivals go to the handler, set once before use.
  void set_control_handler(ControlHandler* h);
  void send_control(int dst, const void* data, size_t bytes);
  // Whether world rank r was lost (its link failed).
  bool is_lost(int r);

  // transport::InboundSink
  bool on_message(int src, const transport::MsgHeader& hdr, const uint8_t* data) override;
  transport::InboundMsg* on_message_begin(int src, const transport::MsgHeader& hdr) override;
  bool on_message_data(transport::InboundMsg* msg, const uint8_t* data, size_t n) override;
  void on_message_abandon(transport::InboundMsg* msg, const Status& why) override;
  void on_peer_lost(int src, const Status& why) override;
  void on_remote_abort(int src, uint32_t ctx, const Status& why) override;

  // transport::PlacementSink
  transport::Placement claim_placement(transport::InboundMsg* msg, uint8_t** dst) override;
  void finish_placement(transport::InboundMsg* msg, const Status& st) override;
  void release_placement(transport::InboundMsg* msg) override;
  uint64_t bind_generation() const override { return bind_gen_.load(std::memory_order_acquire); }

 private:
  struct Context {
    std::vector<int> members;
    // In arrival / posting order; deques, as matches are mostly at the front and a list
    // would allocate per message.
    std::deque<RequestPtr> posted;
    std::deque<UnexpectedMsg*> unexpected;
    Status failed;
    bool coll_active = false;
    uint32_t coll_seq = 0;
    uint64_t coll_aux = 0;
    AuxDescriber describe = nullptr;
    ArrivalListener* listener = nullptr;
    // A receive or probe from NEXAR_ANY_SOURCE asked every member's link to connect
    // (expect_links_locked): done once per context.
    bool any_source_expected = false;
  };
  // A message was stored as unexpected on c.
  void note_unexpected_locked(const Context& c) {
    wake_probers();
    if (c.listener) c.listener->on_arrival();
  }
  // A message on ctx whose collective disagrees with the one running here: the status to
  // abort ctx with (ok() when they agree).
  Status check_collective_locked(const Context& c, int src, const transport::MsgHeader& hdr) const;
  void abort_context_locked(Context& c, const Status& why, bool tell_peers,
                            std::vector<transport::PeerLink*>* targets);

  Context& context_locked(uint32_t ctx);
  RequestPtr match_posted_locked(Context& c, int src, int tag);
  Status post_recv(uint32_t ctx, int src, int tag, const RequestPtr& req);
  // The links a receive or probe from src on c waits on, to be told expect() outside mu_
  // (a link that connects on first use connects then, so that the peer's loss fails the
  // wait): src's, or with NEXAR_ANY_SOURCE every member's, as any member may be the sender
  // (once per context).
  std::vector<transport::PeerLink*> expect_links_locked(Context& c, int src);
  bool find_unexpected_locked(const Context& c, int src, int tag, Probed* out) const;
  // Wakes threads waiting in probe() when a message is stored (a failed context or a lost
  // rank rings the waiter anyway).
  void wake_probers() {
    if (probers_.load(std::memory_order_acquire)) waiter_.ring();
  }
  // A whole message from src, which came over via's link (src's own unless relayed).
  bool deliver_message(int src, int via, const transport::MsgHeader& hdr, const uint8_t* data,
                       std::vector<transport::PeerLink*>* targets);

  // Relaying (engine_relay.cc). The rank whose link a message to dst leaves on: dst's
  // own, else the topology's next hop (-1: none).
  int route_locked(int dst) const;
  // The rank whose link messages from src arrive on (the last hop of src's route here).
  int arrives_via_locked(int src) const;
  // Why peer cannot be reached (outbound: sent to; else received from): it or the relay
  // on the way was lost. ok() when reachable.
  Status unreachable_locked(int peer, bool outbound) const;
  // Sends a message (hdr, data) from this rank to dst, which it holds no link to, as
  // fragments toward hop = route_locked(dst); group (a user's send) completes after the
  // last. Call without mu_.
  void send_relayed(int dst, int hop, const transport::MsgHeader& hdr, const uint8_t* data,
                    std::shared_ptr<detail::SendGroup> group);
  // Hands hop's link the fragments waiting for it, in order per class, while the class's
  // credit allows (all of them once hop is lost: its link fails them). One thread at a
  // time per hop (the others leave it to that one). Call without mu_.
  void drain_hop(int hop);
  // A relay fragment (prefix and payload) arrived over via's link: delivered here, or
  // forwarded. Returns whether the engine has room.
  bool relay_arrived(int via, std::vector<uint8_t> bytes);
  // A message on kRelayContext from via's link: a fragment, or via's credit.
  bool relay_message(int via, std::vector<uint8_t> bytes, int tag);
  // Neighbour via took bytes of this rank's class cls fragments: they no longer count.
  void relay_credit_arrived(int via, const uint8_t* data, size_t n);
  // A fragment for this rank: a piece of the message from p.src that began with the
  // fragment at offset 0 (pieces from one source come in order and are never interleaved
  // with another message from it). Returns whether the engine has room.
  bool relay_deliver(int via, const detail::RelayPrefix& p, const uint8_t* piece, size_t n);
  // This rank is done with a fragment (delivered, dropped, or taken by its next hop's link):
  // the neighbour it came from gets its credit back. Call without mu_.
  void relay_released(const detail::CreditBack& credit, size_t bytes);
  // The message from src being assembled from fragments, abandoned (src or the relay its
  // fragments came through was lost).
  void abandon_relayed_locked(int lost, const Status& why);
  // Rank lost_relay is gone: receives on c from the ranks whose messages came through it fail.
  void fail_relayed_posted_locked(Context& c, int lost_relay);
  friend class detail::OwnedSend;
  transport::InboundMsg* begin_locked(int src, const transport::MsgHeader& hdr);
  // Binds an arriving (or stored) message to a receive, checking its length.
  bool bind_locked(const RequestPtr& req, int src, const transport::MsgHeader& hdr);
  void note_lost_locked(int src, const Status& why);
  // A sparse world: tells every direct peer but `except` that rank lost was lost (why),
  // once per lost rank (the links to tell are gathered under mu_, told outside it).
  std::vector<transport::PeerLink*> lost_notice_links_locked(int lost, int except);
  void send_lost_notice(const std::vector<transport::PeerLink*>& to, int lost, const Status& why);
  // A neighbour's notice that rank lost was lost: noted (unless this rank holds its own
  // link to it, which tells it) and passed on once.
  void on_lost_notice(int from, const uint8_t* data, size_t bytes);
  void fail_posted_locked(Context& c, const Status& why, int only_src);
  // An inbound message that no receive matched, and its stored copy, go.
  void drop_unexpected_locked(transport::InboundMsg* ib);
  // The next n payload bytes of a message bound to a receive or stored as unexpected;
  // frees ib and returns true with its last byte.
  bool append_locked(transport::InboundMsg* ib, const uint8_t* data, size_t n);
  // ib will get no more data: its receive fails with why, its stored copy goes; frees ib.
  void abandon_locked(transport::InboundMsg* ib, const Status& why);
  bool under_limit_locked() const;
  void resume_links_if_room_locked();

  const int rank_;
  const int size_;
  std::mutex mu_;
  std::vector<transport::PeerLink*> links_;
  std::vector<Status> lost_;  // per world rank: why it was lost, ok() while alive
  std::vector<bool> lost_noticed_;  // per world rank: its loss was passed on to direct peers
  std::unordered_map<uint32_t, Context> contexts_;
  UnexpectedStore store_;
  std::vector<bool> link_waiting_;  // links holding back credit until resume()
  topology::Topology topology_;
  uint64_t relay_budget_ = UINT64_MAX;  // credit per next hop and hop class
  size_t relay_fragment_ = 65536 - kRelayPrefixBytes;
  // Per next hop, per hop class (added on first use): fragments not handed over yet, in
  // order, and the bytes handed over that the hop has not given credit back for.
  struct Lane {
    std::deque<detail::OwnedSend*> waiting;
    uint64_t in_flight = 0;
  };
  std::vector<std::vector<Lane>> lanes_;
  Lane& lane_locked(int hop, int cls);  // added on first use
  std::vector<bool> hop_draining_;      // a thread hands hop's fragments over right now
  std::vector<transport::InboundMsg*> relay_rx_;  // per source: the message being assembled
  RelayStats relay_stats_;
  std::condition_variable placed_cv_;  // a placement finished (cancel waits for it)
  std::atomic<uint64_t> bind_gen_{0};
  Waiter waiter_;
  std::atomic<uint64_t> abort_epoch_{0};
  std::atomic<ControlHandler*> control_{nullptr};
  std::atomic<int> probers_{0};  // threads in probe()
};

}  // namespace nexar::p2p
