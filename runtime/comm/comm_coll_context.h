// CollContext over a communicator's collective context id: what algorithms use. Every
// transfer of one collective shares the deadline set when the collective started.
#pragma once

#include "collectives/coll_context.h"
#include "comm/comm.h"

namespace nexar::comm {

class CommCollContext final : public coll::CollContext {
 public:
  explicit CommCollContext(Comm& comm) : comm_(comm), deadline_(comm.deadline()) {}
  ~CommCollContext() override;

  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  Status isend(int peer, int tag, const void* buf, size_t bytes, coll::Pending* out) override;
  Status irecv(int peer, int tag, void* buf, size_t bytes, coll::Pending* out) override;
  Status wait(coll::Pending* p) override;

 private:
  Comm& comm_;
  p2p::Clock::time_point deadline_;
};

}  // namespace nexar::comm
