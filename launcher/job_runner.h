// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The running job: starts the ranks, then one event loop (poll on the signalfd and every
// rank's output pipes, no busy waiting) that forwards output and signals, reaps ranks,
// enforces --timeout, and tears the job down on the first failure:
//   one line naming the rank and the cause, SIGTERM to every other rank's process group,
//   SIGKILL after the grace period, output drained, exit status of that rank (128+signal).
// A second SIGINT or SIGTERM to nexrun kills the ranks at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "launcher/failure_ledger.h"
#include "launcher/job_plan.h"
#include "launcher/job_status.h"
#include "launcher/output_forwarder.h"
#include "launcher/report_then_teardown.h"
#include "launcher/signal_events.h"
#include "launcher/spawn.h"

namespace nexar::launcher {

// How a launch agent (agent_main.cc) plugs into the runner; the launcher leaves it empty.
struct RunnerHooks {
  // A rank's output, in whole lines or pieces of long lines (OutputForwarder::Sink).
  // Unset: nexrun's own stdout/stderr (rank_output.h decorations).
  std::function<void(int rank, bool is_stderr, const char* data, size_t len, bool line_end)> output;
  std::function<void(int rank, pid_t pid)> rank_started;
  // Set: the owner decides what a failure means (no line printed, no teardown here).
  std::function<void(int rank, int wait_status)> rank_ended;
  // Launch errors and notices; unset: "nexrun: ..." on stderr.
  std::function<void(const std::string& line)> report;
  // Another descriptor the event loop watches (the agent's control channel).
  int watch_fd = -1;
  std::function<void()> on_watch_readable;
  // While it returns true the runner keeps going with no rank alive (a launch agent waits
  // for the launcher to decide whether a failed rank gets a replacement).
  std::function<bool()> keep_open;
  // Set: SIGUSR1 asks for a hang report (not forwarded), and the first failure and
  // --timeout ask for one and stop the ranks once it is done (HangCollector::request's
  // test; the loop goes on meanwhile). Unset (launch agents): SIGUSR1 is forwarded like
  // SIGUSR2.
  std::function<std::function<bool()>(const std::string& reason, bool if_nexar)> hang_report;
  // Called at least every tick_s seconds (heartbeats).
  double tick_s = 0;
  std::function<void()> on_tick;
};

class JobRunner {
 public:
  JobRunner(const JobPlan& plan, JobStatus* status, SignalEvents* signals, RunnerHooks hooks = {});
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Starts rank after rank (programs already resolved; one spec per rank). On a launch
  // failure, prints one line, stops the ranks already started and sets *exit_code
  // (126/127 when exec failed as in a shell, 1 otherwise); returns false.
  bool start(const std::vector<SpawnSpec>& ranks, int* exit_code);

  // Runs the job to its end; returns nexrun's exit status (failure_ledger.h).
  int wait();

  // Starts incarnation k > 0 of a rank whose process ended: its spec with
  // NEXAR_RESTART_COUNT=k. False (one line reported) when it cannot be started.
  bool respawn(int rank, int incarnation);
  // Whether nexrun was asked to stop (SIGINT/SIGTERM) or the job ran out of --timeout.
  bool stopped_from_outside() const { return stop_requests_ > 0 || timed_out_; }

  // From hooks: stop every rank (SIGTERM, SIGKILL after the grace period), or pass a signal on.
  void stop() { begin_teardown(); }
  void forward_signal(int signo) { signal_alive(signo); }
  int alive() const { return alive_; }
  void stop_watching() { hooks_.watch_fd = -1; }  // the watched descriptor reached EOF

 private:
  using Clock = std::chrono::steady_clock;
  struct Rank {
    pid_t pid = -1;
    bool alive = false;
    int incarnation = 0;
    std::unique_ptr<OutputForwarder> out, err;
  };

  Status spawn_one(int rank, int* exec_errno);

  void on_signal(const SignalEvent& ev);
  // Reaps every rank that ended, first (the SIGCHLD's child) before the others.
  void reap(pid_t first = 0);
  void on_rank_end(int rank, int wait_status);
  void begin_teardown();
  // The first failure or --timeout: a hang report, then (unless no_kill, which even_no_kill
  // overrides) the teardown.
  void stop_after_report(const std::string& reason, bool even_no_kill);
  void signal_alive(int signo);
  int poll_timeout_ms() const;
  void check_deadlines();
  bool any_output_open() const;
  void report(const std::string& line);

  const JobPlan& plan_;
  JobStatus* status_;
  SignalEvents* signals_;
  RunnerHooks hooks_;
  std::optional<Clock::time_point> next_tick_;
  std::vector<Rank> ranks_;
  std::vector<SpawnSpec> specs_;
  // Output of a replaced process, read until it closes.
  std::vector<std::unique_ptr<OutputForwarder>> retired_;
  int alive_ = 0;
  Clock::time_point started_;
  std::optional<Clock::time_point> job_deadline_;   // --timeout
  std::optional<Clock::time_point> kill_deadline_;  // SIGKILL after SIGTERM
  std::optional<Clock::time_point> drain_deadline_; // stop waiting for output
  ReportThenTeardown stop_report_;
  bool tearing_down_ = false;
  bool timed_out_ = false;
  int stop_requests_ = 0;                           // SIGINT/SIGTERM received
  FailureLedger ledger_;
};

}  // namespace nexar::launcher
