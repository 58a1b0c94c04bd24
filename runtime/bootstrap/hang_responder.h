// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank's side of nexrun's hang reports (launcher/hang_collector.h has the other side).
// Rounds are rendezvous keys: nexrun (on SIGUSR1, a failure, or a request) sets
// "dump/<n>"; every rank answers with "record/<n>/<rank>" = its flight-recorder snapshot
// (trace::snapshot_json); nexrun prints the report and sets "dump/<n>/done".
//
// The answer comes from the QUIC progress thread: one asynchronous long poll on the next
// round's key is always outstanding, so a rank stuck in user code (or blocked in a call)
// still answers. Nothing runs on the data path and no thread of its own exists.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "rendezvous/rendezvous.h"

namespace nexar::bootstrap {

class HangResponder {
 public:
  // Starts polling through client (which must outlive stop()) for round first_round (the
  // value of "dump/next"). snapshot is called on the progress thread.
  HangResponder(rendezvous::Client* client, int rank, int64_t first_round, std::function<std::string()> snapshot);
  ~HangResponder() { stop(); }
  HangResponder(const HangResponder&) = delete;
  HangResponder& operator=(const HangResponder&) = delete;

  // No new polls; answers in flight are dropped. Call before the client is destroyed.
  void stop();

  // The error path (a timeout, a lost peer): asks nexrun for a round, unless this rank
  // answered one moments ago; wait: and waits until nexrun has printed the report, at
  // most NEXAR_REPORT_TIMEOUT + 1 s, so the other ranks still wait where they hang when
  // they answer. Returns at once when reports are off (NEXAR_REPORT_TIMEOUT=0). User
  // threads only.
  void request(const std::string& reason, bool wait);

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace nexar::bootstrap
