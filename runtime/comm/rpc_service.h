// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A communicator's remote procedure calls, target side (nexar_rpc_register): the handlers
// by function id and the thread that runs them. Requests travel on the communicator's RPC
// context (rpc_wire.h). The engine tells the service when one waits unreceived
// (p2p::ArrivalListener); the service's thread, started on the first, receives it, runs
// its handler and sends the reply. So a handler runs whether the program is inside a nexar
// call or not, and never on a transport's thread (it may block, and call nexar itself);
// one handler at a time per communicator, in arrival order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "p2p/engine.h"

namespace nexar::comm {
class Comm;
}

namespace nexar::comm::rpc {

// Runs one call: caller is its comm rank; the handler writes its result into *result. A
// failure's status is the caller's result.
using Handler = std::function<Status(int caller, const uint8_t* args, size_t bytes, std::vector<uint8_t>* result)>;

class Service final : public p2p::ArrivalListener {
 public:
  // Listens on c's RPC context (registered by then); no thread until a request arrives.
  explicit Service(Comm& c);
  // Stops listening, lets a running handler finish, and waits (bounded by the
  // communicator's timeout) for replies still being sent.
  ~Service() override;

  // NEXAR_ERR_INVALID_ARGUMENT when fn_id already has a handler.
  Status add(uint32_t fn_id, Handler h);
  // The tag of a new call's reply (unique among the calls in flight on this communicator).
  int next_reply_tag();

  // p2p::ArrivalListener (engine lock held: only wakes the thread, starting it once).
  void on_arrival() override;

 private:
  void loop();
  // Receives one waiting message and serves it; false when none waits.
  bool serve_one();
  void handle_request(int src_world, const std::vector<uint8_t>& msg);
  // Starts the reply (its bytes kept until sent) and forgets the replies already sent.
  void send_reply(int dst_world, int tag, std::vector<uint8_t> bytes);
  void reap_replies(bool wait_all);

  Comm& comm_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool arrived_ = false;  // under mu_: a message waits (or may)
  bool stop_ = false;     // under mu_
  std::thread thread_;    // started under mu_ by the first arrival
  std::unordered_map<uint32_t, Handler> handlers_;  // under mu_
  std::atomic<uint32_t> calls_{0};
  struct Outgoing {
    p2p::RequestPtr req;
    std::vector<uint8_t> bytes;
  };
  std::vector<Outgoing> outgoing_;  // the service thread's only
};

}  // namespace nexar::comm::rpc
