// An operation of the point-to-point engine in flight: a send (it is the SendOp handed to
// a link) or a receive (posted in the engine's matching queue). Completed exactly once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "transport/transport.h"

namespace nexar::p2p {

using Clock = std::chrono::steady_clock;

class Request : public transport::SendOp {
 public:
  enum class Kind { SEND, RECV };
  explicit Request(Kind k) : kind(k) {}

  const Kind kind;
  // Receive parameters (RECV only).
  uint32_t ctx = 0;
  int src_filter = 0;  // world rank or NEXAR_ANY_SOURCE
  int tag_filter = 0;  // tag or NEXAR_ANY_TAG
  uint8_t* buf = nullptr;
  size_t capacity = 0;
  // A collective's receive checks the sender's descriptor: a different one fails the
  // receive with NEXAR_ERR_MISMATCH, leaving the two values here.
  bool check_aux = false;
  uint64_t aux = 0;           // expected (receive)
  uint64_t aux_received = 0;  // what the sender had
  // Send parameters (SEND only): the link carrying it.
  transport::PeerLink* link = nullptr;
  int peer = -1;

  // Results of a receive: who sent it, with which tag, how many bytes.
  int source = -1;
  int tag = -1;
  size_t bytes = 0;

  // Engine bookkeeping, guarded by the engine's mutex.
  transport::InboundMsg* inflight = nullptr;  // a large message being received into buf
  bool posted = false;               // in the posted-receive queue

  // Holds the request alive while a link or the engine may still complete it.
  std::shared_ptr<Request> keepalive;

  void complete(const Status& status) override;
  bool is_done();
  // Waits until complete or deadline: the operation's status, or NEXAR_ERR_TIMEOUT
  // (then the operation is still in flight: the engine must cancel it).
  Status wait_until(Clock::time_point deadline);
  // The completion status (valid once done).
  Status result();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  Status status_;
};

using RequestPtr = std::shared_ptr<Request>;

}  // namespace nexar::p2p
