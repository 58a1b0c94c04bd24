// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a rank's end means for the job, and the job's exit status (shared by the runner on
// one host and the job on many).
//   Without recovery: the first failure's status decides; the first failure stops the job.
//   With --enable-recovery (or --respawn): failures stop nothing; a failure is recovered
//   from once any rank's process exits 0 after it (the survivors carried the job on); the
//   status is that of the first failure not recovered from, else 0.
//   With --respawn N: the first N failures (in the job) each get a replacement process.
#pragma once

#include <string>
#include <vector>

namespace nexar::launcher {

class FailureLedger {
 public:
  FailureLedger(bool recovery, int respawn_budget) : recovery_(recovery), respawn_budget_(respawn_budget) {}

  enum class Action {
    kNothing,  // a success, or a consequence of the teardown
    kReport,   // a failure to name in one line
    kFail,     // the job's first failure without recovery: name it, mark the job failed, stop it
    kRespawn,  // name it and start a replacement
  };
  Action on_end(int wait_status, bool tearing_down);
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
};

}  // namespace nexar::launcher
