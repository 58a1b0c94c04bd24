// The job's state as the rendezvous shows it at GET /status. Written by nexrun's event
// loop, read (as JSON) on the rendezvous progress thread: every access holds the mutex.
#pragma once

#include <sys/types.h>

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

  // {"job_id":"..","world_size":N,"state":"running|failed|finished","restarts":0,"replacements":0,
  //  "ranks":[{"rank":0,"pid":123,"state":"starting|running|exited|signaled","status":0,"incarnation":0}]}
  // status: the exit code, or the signal number when signaled; null while running.
  // restarts: gang restarts so far; replacements: replacement processes started in the job
  // (in this attempt); incarnation: which process of the rank this is.
  std::string to_json() const;

 private:
  struct Rank {
    pid_t pid = 0;
    bool ended = false;
    int wait_status = 0;
    int incarnation = 0;
  };
  mutable std::mutex mu_;
  const std::string job_id_;
  std::vector<Rank> ranks_;
  int restarts_ = 0, replacements_ = 0;
  enum class State { RUNNING, FAILED, FINISHED } state_ = State::RUNNING;
};

}  // namespace nexar::launcher
