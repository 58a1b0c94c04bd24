// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// CollContext over a communicator's collective context id: what algorithms use. Every
// transfer and wait of one collective shares one deadline, set when the first of them
// needs it (a slot collective whose members are all running never reads the clock), carries its
// descriptor (a rank running another collective is NEXAR_ERR_MISMATCH, not a hang), and
// is tagged with its sequence number so consecutive collectives never mix.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <vector>

#include "collectives/coll_context.h"
#include "collectives/collective.h"
#include "comm/comm.h"
#include "shm_coll/comm_slots.h"

namespace nexar::comm {

// What a communicator's collectives move over: shared memory when every member shares
// this rank's host (Comm::single_host), else the network.
inline coll::CollTransport coll_transport(const Comm& comm) {
  return comm.single_host() ? coll::CollTransport::SHM : coll::CollTransport::NETWORK;
}

class CommCollContext final : public coll::CollContext {
 public:
  CommCollContext(Comm& comm, uint32_t seq, uint64_t descriptor);
  ~CommCollContext() override;

  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  coll::CollTransport transport() const override { return coll_transport(comm_); }
  int cores() const override { return comm_.cores(); }
  const coll::RouteStretch& routes() const override { return comm_.routes(); }
  Status isend(int peer, int tag, const void* buf, size_t bytes, coll::Pending* out) override;
  Status irecv(int peer, int tag, void* buf, size_t bytes, coll::Pending* out) override;
  Status wait(coll::Pending* p) override;
  coll::ShmSlots* shm_slots() override;
  // The flight recorder's entry of this collective (nullptr when it is off) and its hooks:
  // the algorithm, and the comm rank a wait blocks on (t0: its start, when traced).
  void set_record(trace::CallRecord* r) { rec_ = r; }
  void note_algorithm(const char* name) override { trace::CommRecorder::set_algo(rec_, name); }
  void wait_begin(int peer, int64_t* t0) { comm_.recorder().wait_begin(rec_, peer, t0); }
  void wait_end(int peer, int64_t t0) { comm_.recorder().wait_end(rec_, peer, t0); }
  // Announces this collective (sequence, descriptor) to the engine, once: before the
  // first transfer, or when a slot wait is slow (CommSlots), so a peer that runs another
  // collective over messages is still NEXAR_ERR_MISMATCH. A slot collective that ends
  // quickly never takes the engine's lock.
  void tell_engine();
  // Transfers started and neither waited for nor finished (a test's view: an algorithm that
  // returns must leave none).
  size_t unfinished() const;
  // The collective's deadline: the communicator's timeout from the first call.
  p2p::Clock::time_point deadline() {
    if (!has_deadline_) {
      deadline_ = comm_.deadline();
      has_deadline_ = true;
    }
    return deadline_;
  }

 private:
  Status engine_tag(int tag, int* out) const;
  void track(coll::Pending* out, p2p::RequestPtr req);
  // The first error of a transfer ends the collective (the algorithm returns it at once):
  // records it and cancels every transfer still in flight, waiting until no link touches
  // their buffers, so that this happens while the algorithm's frame (scratch buffers the
  // transfers read or write) still exists. Returns st.
  Status end_on_error(Status st);
  Status wait_one(const p2p::RequestPtr& req);  // no failure yet: waits, judges the length
  void release(p2p::RequestPtr* slot);
  template <class Fn>
  void for_each_request(const Fn& fn);

  Comm& comm_;
  const uint32_t seq_;
  const uint64_t descriptor_;
  p2p::Clock::time_point deadline_{};
  bool has_deadline_ = false;
  bool engine_told_ = false;
  trace::CallRecord* rec_ = nullptr;
  Status failure_;        // the first transfer error: later transfers fail with it at once
  std::optional<CommSlots> slots_view_;  // made on first use
  // Transfers started and not yet waited for: cancelled at the first error (end_on_error),
  // and by the destructor should an algorithm return its own error with some in flight.
  // A few slots in place (most algorithms keep one or two transfers in flight), the rest
  // on the heap; a Pending points at its slot. Made by the first transfer: a collective
  // over slots only, or on one rank, neither builds nor destroys them.
  static constexpr size_t kInlineSlots = 8;
  struct Transfers {
    std::array<p2p::RequestPtr, kInlineSlots> slots;
    std::vector<p2p::RequestPtr*> overflow;
  };
  std::optional<Transfers> transfers_;
};

// Runs one collective on comm: validates nothing (the API did), numbers it, announces its
// descriptor to the engine (when it uses messages), selects and runs the algorithm. Fatal errors break comm.
// It is recorded in comm's flight recorder; queued_id: its entry while it was queued
// (CommRecorder::note_queued), 0 if none. checked: the caller found comm usable just
// before (the API's inline path), so it is not asked again; else a broken comm fails the
// call at once (recorded as failed).
Status run_collective(Comm& comm, const coll::CollArgs& args, uint64_t queued_id = 0, bool checked = false);

// run_collective for a blocking call whose arguments passed their checks and are
// remembered with run (comm/passed_call.h), on a communicator found usable just before:
// it is described by run's call words and runs run's algorithm while the parameters'
// generation and the slot area are run's; else it chooses, as run_collective does, and
// keeps the choice in run. The caller holds comm's collective queue.
Status run_passed_call(Comm& comm, const coll::CollArgs& args, PassedRun& run);

// A collective that body runs outside the host algorithms (a device library's, e.g.
// NCCL's): numbered and recorded like run_collective, with algo as its algorithm.
Status run_outside(Comm& comm, const coll::CollArgs& args, const char* algo, const std::function<Status()>& body);

}  // namespace nexar::comm
