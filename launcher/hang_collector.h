// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun's side of the hang reports (bootstrap/hang_responder.h is the ranks' side): runs
// rounds on the rendezvous's progress thread. A round starts when "dump/<n>" is set (by
// request() here: SIGUSR1, --timeout, a failed rank; or by a rank that timed out or lost
// a peer; or by `nexrun --status`); every running rank answers "record/<n>/<rank>"; after
// all answered or NEXAR_REPORT_TIMEOUT passed, the report (hang_report.h) is printed on
// stderr, the ranks' current calls go to the job status, and "dump/<n>/done" is set.
// "dump/next" always holds the next round's number.
// Round reasons: "status..." rounds are quiet (only the job status changes); "exit:..."
// rounds print only when some rank is stuck in a collective.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "launcher/job_status.h"
#include "rendezvous/rendezvous.h"

namespace nexar::launcher {

class HangCollector {
 public:
  // print: the report's whole text, written once (progress thread).
  HangCollector(JobStatus* status, std::function<void(const std::string&)> print);
  ~HangCollector();
  HangCollector(const HangCollector&) = delete;
  HangCollector& operator=(const HangCollector&) = delete;

  // Starts serving rounds through server (which must outlive this object's rounds).
  void attach(rendezvous::Server* server);
  // Any thread: starts a round unless one is running. Returns a test that turns true once
  // the round is printed, or NEXAR_REPORT_TIMEOUT + 1 s later; at once when reports are
  // off or (if_nexar) the ranks do not use libnexar (they published no addresses: a failing
  // job of other programs is not delayed). Never blocks: a caller that must wait polls the
  // test while it goes on delivering the ranks' ends, which the round waits for.
  std::function<bool()> request(const std::string& reason, bool if_nexar = false);
  // Any thread: rank has ended; a running round stops waiting for its record.
  void rank_ended(int rank);

  struct State;

 private:
  std::shared_ptr<State> state_;
  rendezvous::Server* server_ = nullptr;
};

}  // namespace nexar::launcher
