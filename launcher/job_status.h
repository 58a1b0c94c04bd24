// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The job's state as the rendezvous shows it at GET /status. Written by nexrun's event
// loop, read (as JSON) on the rendezvous progress thread: every access holds the mutex.
#pragma once

#include <sys/types.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace nexar::launcher {

class JobStatus {
 public:
  JobStatus(std::string job_id, int world_size);

  // incarnation: 0 for a rank's first process, k for its k-th replacement (--respawn).
  void rank_started(int rank, pid_t pid, int incarnation = 0);
  // A gang restart (--max-restarts): every rank starts again as attempt `attempt`.
  void new_attempt(int attempt);
  void rank_ended(int rank, int wait_status);
  void job_failed();
  void job_finished();  // keeps "failed" once failed
  int world_size() const { return static_cast<int>(ranks_.size()); }
  // "" while rank runs (or has not started), else how it ended ("exited with status 1").
  std::string end_note(int rank) const;
  // The latest hang report (hang_collector.h) and each rank's current call in it.
  void set_report(std::string report, std::vector<std::string> current);
  // Called (outside the lock) after rank_ended: a report round stops waiting for the rank.
  void set_end_observer(std::function<void(int rank)> f) { end_observer_ = std::move(f); }

  // {"job_id":"..","world_size":N,"state":"running|failed|finished","restarts":0,"replacements":0,
  //  "ranks":[{"rank":0,"pid":123,"state":"starting|running|exited|signaled","status":0,"incarnation":0,
  //            "current":"allreduce #7 on comm 0x0"}],"report":"nexrun: hang report: ..."}
  // status: the exit code, or the signal number when signaled; null while running.
  // restarts: gang restarts so far; replacements: replacement processes started in the job
  // (in this attempt); incarnation: which process of the rank this is.
  // current: what the rank did at the latest hang-report round (null before one); report: its text.
  std::string to_json() const;

 private:
  struct Rank {
    pid_t pid = 0;
    bool ended = false;
    int wait_status = 0;
    int incarnation = 0;
    std::string current;  // at the latest report round
  };
  std::string report_;
  std::function<void(int)> end_observer_;  // set before ranks start
  mutable std::mutex mu_;
  const std::string job_id_;
  std::vector<Rank> ranks_;
  int restarts_ = 0, replacements_ = 0;
  enum class State { RUNNING, FAILED, FINISHED } state_ = State::RUNNING;
};

}  // namespace nexar::launcher
