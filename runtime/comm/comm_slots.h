// coll::ShmSlots over a communicator's SlotArea, for one collective: its descriptor, its
// deadline, and the engine's waiter (spin, then yield when ranks outnumber cores, then
// sleep on this rank's `user` doorbell, which publish() rings on every member).
#pragma once

#include "collectives/shm_slots.h"
#include "comm/comm.h"
#include "comm/slot_area.h"

namespace nexar::comm {

class CommCollContext;

class CommSlots final : public coll::ShmSlots {
 public:
  CommSlots(CommCollContext& ctx, Comm& comm, SlotArea& area, uint64_t descriptor,
            const p2p::Clock::time_point& deadline)
      : ctx_(ctx), comm_(comm), a_(area), descriptor_(descriptor), deadline_(deadline) {}

  uint64_t next_seq() override { return ++a_.seq; }
  size_t inline_bytes() const override { return a_.inline_bytes; }
  bool can_read_all() const override { return a_.cma; }
  shm::CollSlotBuf* buf(int r, uint64_t seq) const override {
    return shm::coll_buf(a_.slots[static_cast<size_t>(r)], a_.inline_bytes, seq);
  }
  Status arrive(uint64_t seq, uint64_t count) override;
  void publish(coll::SlotField field, uint64_t seq) override;
  Status wait(coll::SlotField field, uint64_t seq, int r) override;
  Status read(int r, void* to, uint64_t from, size_t n) override;

 private:
  // Why waiting must stop early (the communicator broke, or member r died), else ok().
  // A slow wait first announces the collective to the engine (tell_engine).
  Status broken(int r);
  Status not_arrived(coll::SlotField field, uint64_t seq, int from, int to) const;

  CommCollContext& ctx_;
  Comm& comm_;
  SlotArea& a_;
  const uint64_t descriptor_;
  const p2p::Clock::time_point& deadline_;
};

}  // namespace nexar::comm
