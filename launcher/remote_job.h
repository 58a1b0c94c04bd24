// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A job on many hosts: one launch agent per host (agent_main.h), started through the
// --launch-agent template (default "ssh {host}") or, inside SLURM, one srun step for all.
// Phases: start the agents and send each its ranks (program, environment, credential
// contents); wait until every host checked its part (bounded: NEXAR_AGENT_TIMEOUT; a
// failure is one line naming the host and the cause); start the rendezvous on an address
// the hosts can reach; GO; then the event loop: output, exits, signals, heartbeats,
// --timeout, and teardown with the first failing rank's status.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/agent_protocol.h"
#include "launcher/failure_ledger.h"
#include "launcher/job_plan.h"
#include "launcher/job_status.h"
#include "launcher/output_forwarder.h"
#include "launcher/rank_map.h"
#include "launcher/rank_output.h"
#include "launcher/rank_env.h"
#include "launcher/rendezvous_service.h"
#include "launcher/report_then_teardown.h"
#include "launcher/signal_events.h"

namespace nexar::launcher {

struct RemoteLaunch {
  std::string agent_template;  // "{host}" replaced; empty with use_srun
  bool use_srun = false;       // one `srun ... nexrun --agent slurm` step for every host
  std::string nexrun_path;     // this program, as the hosts find it
};

// The commands that start the agents, one per line (--dry-run shows them).
std::vector<std::string> agent_commands(const RemoteLaunch& how, const RankMap& map);

class RemoteJob {
 public:
  RemoteJob(const JobPlan& plan, const RankMap& map, const RemoteLaunch& how, JobStatus* status,
            SignalEvents* signals, RankOutput* output);
  ~RemoteJob();
  RemoteJob(const RemoteJob&) = delete;
  RemoteJob& operator=(const RemoteJob&) = delete;

  // rank_env: per rank, the variables to set there (job variables, -x, NEXAR_*);
  // argv: per rank, program and arguments; pems: per rank, the credential file contents.
  // Returns false with *exit_code set after printing one line when a host failed.
  bool start(JobEnvironment* job, const std::vector<std::vector<std::string>>& rank_env,
             const std::vector<std::vector<std::string>>& argv, const std::vector<std::string>& pems,
             const std::string& launcher_credential, int* exit_code);
  int wait();
  // Whether nexrun was asked to stop (SIGINT/SIGTERM) or the job ran out of --timeout.
  bool stopped_from_outside() const { return stop_requests_ > 0 || timed_out_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Channel {
    pid_t pid = -1;
    int in_fd = -1;
    std::unique_ptr<agent::LineReader> out;
    std::unique_ptr<OutputForwarder> err;
    std::string last_err;  // last stderr line of the agent (its cause of failure)
    std::vector<int> hosts;
    bool open = true;
  };
  struct Host {
    int channel = -1;
    bool ready = false, done = false, lost = false;
    std::vector<std::string> ips;
    int master_port = 0;
    Clock::time_point last_heard;
  };

  Status spawn_agents();
  void send(Channel& c, const std::string& line);
  void broadcast(const std::string& type, const std::vector<std::string>& fields);
  void poll_once(int timeout_ms);
  void on_line(Channel& c, const std::string& line);
  void on_channel_end(Channel& c);
  void on_signal(int signo);
  void fail_host(int h, const std::string& cause, int code);
  void begin_teardown();
  // The first failure or --timeout: a hang report, then (unless no_kill, which even_no_kill
  // overrides) the teardown.
  void stop_after_report(const std::string& reason, bool even_no_kill);
  void check_deadlines();
  void report(const std::string& line);
  std::string host_name(int h) const { return map_.hosts[static_cast<size_t>(h)].name; }
  Status choose_rendezvous_address(std::string* ip);

  const JobPlan& plan_;
  const RankMap& map_;
  const RemoteLaunch how_;
  JobStatus* status_;
  SignalEvents* signals_;
  RankOutput* output_;
  std::vector<Channel> channels_;
  std::vector<Host> hosts_;  // index: host index in map_
  std::vector<int> used_;
  std::unique_ptr<RendezvousService> rendezvous_;
  bool started_ = false;  // GO sent
  int alive_ranks_ = 0;
  bool tearing_down_ = false, timed_out_ = false;
  int stop_requests_ = 0;
  FailureLedger ledger_;
  std::vector<int> incarnation_;  // per rank: its current process (--respawn)
  std::optional<Clock::time_point> job_deadline_, teardown_deadline_, next_beat_;
  ReportThenTeardown stop_report_;
  double agent_timeout_s_ = 10;
};

}  // namespace nexar::launcher
