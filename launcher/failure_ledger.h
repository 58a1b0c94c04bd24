// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a rank's end means for the job, and the job's exit status (shared by the runner on
// one host and the job on many).
//   Without recovery: the first failure's status decides; the first failure stops the job.
//   With --enable-recovery (or --respawn): failures stop nothing; a failure is recovered
//   from once any rank's process exits 0 after it (the survivors carried the job on); the
//   status is that of the first failure not recovered from, else 0.
//   With --respawn N: the first N failures (in the job) each get a replacement process.
// A first failure that is an exit status is held for kCauseWindow before it decides: a rank
// killed by a signal meanwhile is the cause, and the exit its consequence (peers that notice
// a killed rank, e.g. by its closed sockets, can exit before the kernel reports its end).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace nexar::launcher {

class FailureLedger {
 public:
  FailureLedger(bool recovery, int respawn_budget) : recovery_(recovery), respawn_budget_(respawn_budget) {}

  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kCauseWindow{250};

  enum class Action {
    kNothing,  // a success, or a consequence of the teardown or of a held failure
    kReport,   // a failure to name in one line
    kFail,     // the job's first failure without recovery: name it, mark the job failed, stop it
    kRespawn,  // name it and start a replacement
    kHold,     // the first failure, an exit status: held (its report `what` with it) until
               // due_hold() gives it back, unless a rank killed by a signal comes first (kFail)
  };
  Action on_end(int wait_status, bool tearing_down, const std::string& what = "");
  // The held failure's report once it decides (kCauseWindow passed, or no rank is left to
  // be its cause): then name it and stop the job as for kFail.
  std::optional<std::string> due_hold(bool ranks_left);
  bool holding() const { return hold_until_.has_value(); }
  std::optional<Clock::time_point> hold_until() const { return hold_until_; }
  // A failure nothing recovers from (a host lost, a launch that failed).
  void fatal(int exit_code) { failures_.push_back({exit_code, false, true}); }

  bool any_failure() const { return !failures_.empty(); }
  int status() const;
  int replacements() const { return replacements_; }
  // "; starting replacement k of rank r (i of N in the job)", after a kRespawn.
  std::string respawn_note(int rank, int incarnation) const;

 private:
  struct Failure {
    int code;
    bool recovered;
    bool fatal;
  };
  const bool recovery_;
  const int respawn_budget_;
  int replacements_ = 0;
  std::vector<Failure> failures_;
  std::optional<Clock::time_point> hold_until_;
  std::string held_what_;
};

}  // namespace nexar::launcher
