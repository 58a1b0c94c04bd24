// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/failure_ledger.h"

#include <sys/wait.h>

#include <algorithm>

#include "core/status.h"
#include "launcher/exit_reason.h"

namespace nexar::launcher {

FailureLedger::Action FailureLedger::on_end(int wait_status, bool tearing_down, const std::string& what) {
  if (!is_failure(wait_status)) {
    // A rank that finished its work after a failure: the survivors carried the job on
    // (not when it merely ended while the job was being stopped).
    if (recovery_ && !tearing_down)
      for (Failure& f : failures_) f.recovered = !f.fatal;
    return Action::kNothing;
  }
  const bool first = failures_.empty();
  failures_.push_back({exit_code_of(wait_status), false, false});
  if (tearing_down) return Action::kNothing;  // ranks we stop fail as a consequence, not a cause
  if (replacements_ < respawn_budget_) {
    ++replacements_;
    return Action::kRespawn;
  }
  if (recovery_) return Action::kReport;
  if (holding()) {
    if (!WIFSIGNALED(wait_status)) return Action::kNothing;  // one more consequence
    // Killed while the exit was held: it ended first; the held exit followed from it.
    std::rotate(failures_.begin(), failures_.end() - 1, failures_.end());
    hold_until_.reset();
    return Action::kFail;
  }
  if (!first) return Action::kReport;
  if (WIFSIGNALED(wait_status)) return Action::kFail;
  hold_until_ = Clock::now() + kCauseWindow;
  held_what_ = what;
  return Action::kHold;
}

std::optional<std::string> FailureLedger::due_hold(bool ranks_left) {
  if (!hold_until_ || (ranks_left && Clock::now() < *hold_until_)) return std::nullopt;
  hold_until_.reset();
  return std::move(held_what_);
}

std::string FailureLedger::respawn_note(int rank, int incarnation) const {
  return strprintf("; starting replacement %d of rank %d (%d of %d in the job)", incarnation, rank, replacements_,
                   respawn_budget_);
}

int FailureLedger::status() const {
  for (const Failure& f : failures_)
    if (!f.recovered) return f.code;
  return 0;
}

}  // namespace nexar::launcher
