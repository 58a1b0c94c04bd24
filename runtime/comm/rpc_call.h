// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A remote procedure call, caller side (nexar_rpc_call, nexar_rpc_icall): the reply's
// receive is posted first (into the reply head and the caller's result buffer), then the
// request (head and a copy of the arguments) is sent to the target's service
// (rpc_service.h). Its own reply tag keeps each call apart from the others in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/rpc_wire.h"
#include "core/status.h"
#include "p2p/request.h"

namespace nexar::comm {
class Comm;
}

namespace nexar::comm::rpc {

class Call {
 public:
  // Starts a call of fn_id at comm rank target (may be c's own rank). The arguments are
  // copied; result (capacity bytes) is written until the call completes.
  static Status start(Comm& c, int target, uint32_t fn_id, const void* args, size_t args_bytes, void* result,
                      size_t capacity, std::unique_ptr<Call>* out);
  ~Call();

  // Whether the reply is here (polls the transports once).
  bool is_done();
  // Waits for the reply until deadline: the handler's result size in *result_bytes (also
  // when it did not fit), and the call's status: the target's error, NEXAR_ERR_PEER_LOST,
  // or NEXAR_ERR_TIMEOUT (the call is then given up; a late reply is dropped).
  Status finish(p2p::Clock::time_point deadline, size_t* result_bytes);

 private:
  Call(Comm& c, int target, uint32_t fn_id) : comm_(c), target_(target), fn_id_(fn_id) {}
  // Cancels what is still in flight (nothing touches the buffers after).
  void give_up(const Status& why);

  Comm& comm_;
  const int target_;
  const uint32_t fn_id_;
  ReplyHead head_{};
  std::vector<uint8_t> request_;
  p2p::RequestPtr send_, recv_;
  bool finished_ = false;
};

}  // namespace nexar::comm::rpc
