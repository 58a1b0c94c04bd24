// The running job: starts the ranks, then one event loop (poll on the signalfd and every
// rank's output pipes, no busy waiting) that forwards output and signals, reaps ranks,
// enforces --timeout, and tears the job down on the first failure:
//   one line naming the rank and the cause, SIGTERM to every other rank's process group,
//   SIGKILL after the grace period, output drained, exit status of that rank (128+signal).
// A second SIGINT or SIGTERM to nexrun kills the ranks at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "launcher/job_plan.h"
#include "launcher/job_status.h"
#include "launcher/output_forwarder.h"
#include "launcher/signal_events.h"

namespace nexar::launcher {

class JobRunner {
 public:
  JobRunner(const JobPlan& plan, JobStatus* status, SignalEvents* signals);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Starts rank after rank (program already resolved to path; env per rank). On a launch
  // failure, prints one line, stops the ranks already started and sets *exit_code
  // (126/127 when exec failed as in a shell, 1 otherwise); returns false.
  bool start(const std::string& path, const std::vector<std::vector<std::string>>& env, int* exit_code);

  // Runs the job to its end; returns nexrun's exit status.
  int wait();

 private:
  using Clock = std::chrono::steady_clock;
  struct Rank {
    pid_t pid = -1;
    bool alive = false;
    std::unique_ptr<OutputForwarder> out, err;
  };

  void on_signal(int signo);
  void reap();
  void on_rank_end(int rank, int wait_status);
  void begin_teardown();
  void signal_alive(int signo);
  int poll_timeout_ms() const;
  void check_deadlines();
  bool any_output_open() const;
  void report(const std::string& line);

  const JobPlan& plan_;
  JobStatus* status_;
  SignalEvents* signals_;
  std::vector<Rank> ranks_;
  int alive_ = 0;
  Clock::time_point started_;
  std::optional<Clock::time_point> job_deadline_;   // --timeout
  std::optional<Clock::time_point> kill_deadline_;  // SIGKILL after SIGTERM
  std::optional<Clock::time_point> drain_deadline_; // stop waiting for output
  bool tearing_down_ = false;
  bool timed_out_ = false;
  int stop_requests_ = 0;                           // SIGINT/SIGTERM received
  std::optional<int> first_failure_code_;
};

}  // namespace nexar::launcher
