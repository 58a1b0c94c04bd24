// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/agent_main.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "bootstrap/address_select.h"
#include "core/log.h"
#include "core/params.h"
#include "launcher/agent_protocol.h"
#include "launcher/exit_reason.h"
#include "launcher/free_port.h"
#include "launcher/janitor.h"
#include "launcher/job_credentials.h"
#include "launcher/job_runner.h"
#include "launcher/job_status.h"
#include "launcher/program_path.h"
#include "launcher/rank_env.h"
#include "launcher/signal_events.h"

namespace nexar::launcher {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kOutputChunk = 2048;  // bytes of rank output per line on the channel

struct AgentRank {
  int rank = 0;
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=value additions from the launcher
  std::string pem;
  std::string program_path;
};

class Agent {
 public:
  explicit Agent(std::string me) : me_(std::move(me)), in_(STDIN_FILENO) {}
  ~Agent() { remove_dir(); }
  int run();

 private:
  void send(const std::string& type, const std::vector<std::string>& fields);
  bool handle(const agent::Message& m);  // false: a malformed job line
  // Reads the control channel until pred() or EOF/deadline; false on EOF or timeout.
  bool read_until(const std::function<bool()>& pred, Clock::time_point deadline);
  Status check_and_write_credentials();
  void remove_dir();
  void on_control_readable(JobRunner* runner);

  const std::string me_;
  agent::LineReader in_;
  bool eof_ = false, out_lost_ = false;
  std::string job_id_;
  double grace_s_ = 1, heartbeat_s_ = 1, timeout_s_ = 10;
  std::string iface_, cidr_;
  std::map<int, AgentRank> ranks_;
  std::map<int, int> local_index_;  // rank -> index in the runner
  bool recovery_ = false;           // a failed rank waits for the launcher's A
  std::set<int> awaiting_;          // failed ranks whose A has not come yet
  bool checked_ = false, go_ = false, stop_ = false;
  std::vector<std::string> common_env_;
  std::string dir_;
  Janitor janitor_;  // removes dir_ if this agent is killed
  Clock::time_point last_heard_ = Clock::now();
};

void Agent::send(const std::string& type, const std::vector<std::string>& fields) {
  if (out_lost_) return;
  const std::string line = agent::encode(type, me_, fields);
  if (!write_fully(STDOUT_FILENO, line.data(), line.size())) out_lost_ = true;
}

bool Agent::handle(const agent::Message& m) {
  last_heard_ = Clock::now();
  if (m.target != "*" && m.target != me_) return true;
  const auto& f = m.fields;
  auto rank_of = [&](AgentRank** r) {
    if (f.empty()) return false;
    int n = std::atoi(f[0].c_str());
    *r = &ranks_[n];
    (*r)->rank = n;
    return true;
  };
  AgentRank* r = nullptr;
  if (m.type == "J" && f.size() >= 7) {
    if (chdir(f[6].c_str()) != 0) {
      // The launcher's directory does not exist here: stay where the agent started.
    }
    job_id_ = f[0];
    grace_s_ = std::atof(f[1].c_str());
    heartbeat_s_ = std::atof(f[2].c_str());
    timeout_s_ = std::atof(f[3].c_str());
    iface_ = f[4] == "-" ? "" : f[4];
    cidr_ = f[5] == "-" ? "" : f[5];
    recovery_ = f.size() >= 8 && f[7] == "1";
  } else if (m.type == "R" && f.size() >= 2 && rank_of(&r)) {
    r->argv.assign(f.begin() + 1, f.end());
  } else if (m.type == "E" && rank_of(&r)) {
    r->env.insert(r->env.end(), f.begin() + 1, f.end());
  } else if (m.type == "K" && f.size() == 2 && rank_of(&r)) {
    r->pem = f[1];
  } else if (m.type == "C") {
    checked_ = true;
  } else if (m.type == "G") {
    common_env_ = f;
    go_ = true;
  } else if (m.type == "T") {
    stop_ = true;
  } else if (m.type == "S" || m.type == "H") {
    // Signals before start have nothing to reach; heartbeats only refresh last_heard_.
  } else {
    return false;
  }
  return true;
}

bool Agent::read_until(const std::function<bool()>& pred, Clock::time_point deadline) {
  auto next_beat = Clock::now();
  while (!pred()) {
    if (eof_ || stop_) return false;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    if (checked_ && now >= next_beat) {
      send("H", {});
      next_beat = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(heartbeat_s_));
    }
    pollfd p{STDIN_FILENO, POLLIN, 0};
    auto wait = std::min(deadline, next_beat) - now;
    int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()) + 1;
    if (poll(&p, 1, ms) <= 0) continue;
    std::vector<std::string> lines;
    agent::LineReader::Result res = in_.read(&lines);
    for (const std::string& l : lines) {
      agent::Message m;
      if (!agent::decode(l, &m) || !handle(m)) {
        send("F", {"1", "malformed control line from the launcher"});
        return false;
      }
    }
    if (res != agent::LineReader::Result::MORE) eof_ = true;
  }
  return true;
}

Status Agent::check_and_write_credentials() {
  const char* path_env = std::getenv("PATH");
  for (auto& [rank, r] : ranks_) {
    if (r.argv.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("rank %d has no program", rank));
    ProgramLookup p = find_program(r.argv.front(), path_env ? path_env : "");
    if (!p.error.empty()) return Status(p.exit_code == 126 ? NEXAR_ERR_SYSTEM : NEXAR_ERR_INVALID_ARGUMENT, p.error);
    r.program_path = p.path;
    if (r.pem.empty()) return Status(NEXAR_ERR_AUTH, strprintf("no credential for rank %d", rank));
  }
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/nexar-agent-XXXXXX";
  if (!mkdtemp(tmpl.data())) return Status(NEXAR_ERR_SYSTEM, "cannot create a credential directory in " + tmpl);
  dir_ = tmpl;  // mkdtemp makes it 0700
  NX_RETURN_IF_ERROR(janitor_.start(running_executable(), dir_, job_id_));
  for (auto& [rank, r] : ranks_) {
    const std::string file = strprintf("%s/rank-%d.pem", dir_.c_str(), rank);
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || !write_fully(fd, r.pem.data(), r.pem.size())) {
      if (fd >= 0) close(fd);
      return Status(NEXAR_ERR_SYSTEM, "cannot write " + file);
    }
    close(fd);
    r.env.push_back("NEXAR_CREDENTIALS=" + file);
    r.pem.clear();
  }
  return Status::Ok();
}

void Agent::remove_dir() {
  if (dir_.empty()) return;
  for (auto& [rank, r] : ranks_) unlink(strprintf("%s/rank-%d.pem", dir_.c_str(), rank).c_str());
  rmdir(dir_.c_str());
  dir_.clear();
}

void Agent::on_control_readable(JobRunner* runner) {
  std::vector<std::string> lines;
  agent::LineReader::Result res = in_.read(&lines);
  for (const std::string& l : lines) {
    agent::Message m;
    if (!agent::decode(l, &m) || (m.target != "*" && m.target != me_)) continue;
    last_heard_ = Clock::now();
    if (m.type == "S" && !m.fields.empty()) runner->forward_signal(std::atoi(m.fields[0].c_str()));
    if (m.type == "T") runner->stop();
    if (m.type == "A" && m.fields.size() == 2) {
      const int rank = std::atoi(m.fields[0].c_str()), k = std::atoi(m.fields[1].c_str());
      awaiting_.erase(rank);
      auto it = local_index_.find(rank);
      if (k > 0 && it != local_index_.end()) runner->respawn(it->second, k);
    }
  }
  if (res != agent::LineReader::Result::MORE) {
    // The launcher is gone (or its connection): no rank may outlive it.
    eof_ = true;
    runner->stop_watching();
    runner->stop();
  }
}

// The agent's own environment with the launcher's additions (which win).
std::vector<std::string> merge_env(const std::vector<std::string>& base, const std::vector<std::string>& adds) {
  std::map<std::string, std::string> last;  // a later addition replaces an earlier one
  for (const std::string& kv : adds) last[kv.substr(0, kv.find('='))] = kv;
  std::vector<std::string> out;
  for (const std::string& kv : base)
    if (!last.count(kv.substr(0, kv.find('=')))) out.push_back(kv);
  for (const auto& [name, kv] : last) out.push_back(kv);
  return out;
}

int Agent::run() {
  SignalEvents signals;
  if (Status s = signals.open(); !s.ok()) return 1;
  fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
  fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
  const double limit = param::NEXAR_AGENT_TIMEOUT.get();
  auto secs = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  if (!read_until([this] { return checked_; }, Clock::now() + secs(limit * 3))) return eof_ ? 0 : 1;
  if (Status s = check_and_write_credentials(); !s.ok()) {
    send("F", {std::to_string(s.code() == NEXAR_ERR_INVALID_ARGUMENT ? 127 : 126), s.message()});
    return 1;
  }
  int master_port = 0;
  (void)find_free_tcp_port(&master_port);
  std::string ips;
  for (const std::string& ip : bootstrap::interface_addresses(iface_, cidr_)) ips += (ips.empty() ? "" : ",") + ip;
  send("Y", {ips.empty() ? "-" : ips, std::to_string(master_port)});
  if (!read_until([this] { return go_; }, Clock::now() + secs(timeout_s_ * 3))) return eof_ ? 0 : 1;

  std::vector<int> global;  // local index -> rank
  std::vector<SpawnSpec> specs;
  const std::vector<std::string> base = current_environment();
  for (auto& [rank, r] : ranks_) {
    std::vector<std::string> adds = r.env;
    adds.insert(adds.end(), common_env_.begin(), common_env_.end());
    specs.push_back({r.program_path, r.argv, merge_env(base, adds)});
    local_index_[rank] = static_cast<int>(global.size());
    global.push_back(rank);
  }
  JobPlan runner_plan;
  runner_plan.np = static_cast<int>(specs.size());
  runner_plan.grace_s = grace_s_;
  runner_plan.no_kill = true;
  JobStatus status(job_id_, runner_plan.np);
  RunnerHooks hooks;
  JobRunner* runner_ptr = nullptr;
  hooks.output = [&](int i, bool err, const char* d, size_t n, bool end) {
    const std::string rank = std::to_string(global[static_cast<size_t>(i)]);
    do {
      const size_t take = std::min(n, kOutputChunk);
      const bool last = take == n;
      send("O", {rank, err ? "2" : "1", last && end ? "1" : "0", std::string(d, take)});
      d += take;
      n -= take;
    } while (n > 0);
  };
  hooks.rank_started = [&](int i, pid_t pid) {
    send("P", {std::to_string(global[static_cast<size_t>(i)]), std::to_string(pid)});
  };
  hooks.rank_ended = [&](int i, int st) {
    send("X", {std::to_string(global[static_cast<size_t>(i)]), std::to_string(st)});
    if (recovery_ && is_failure(st)) awaiting_.insert(global[static_cast<size_t>(i)]);
  };
  hooks.keep_open = [&] { return !eof_ && !awaiting_.empty(); };
  hooks.report = [&](const std::string& line) { send("F", {"1", line}); };
  hooks.watch_fd = STDIN_FILENO;
  hooks.on_watch_readable = [&] { on_control_readable(runner_ptr); };
  hooks.tick_s = heartbeat_s_;
  hooks.on_tick = [&] {
    send("H", {});
    if (!eof_ && (Clock::now() - last_heard_ > secs(timeout_s_) || out_lost_)) {
      eof_ = true;  // the launcher is silent: treat as lost
      runner_ptr->stop_watching();
      runner_ptr->stop();
    }
  };
  JobRunner runner(runner_plan, &status, &signals, std::move(hooks));
  runner_ptr = &runner;
  int code = 0;
  if (!runner.start(specs, &code)) {
    send("F", {std::to_string(code), "starting the ranks failed"});
    return 1;
  }
  runner.wait();
  send("D", {});
  return 0;
}

}  // namespace

int run_agent(const JobPlan& plan) {
  std::string me = plan.agent;
  if (me == "slurm") {
    const char* id = std::getenv("SLURM_PROCID");
    me = id ? id : "";
  }
  if (me.empty() || me.find_first_not_of("0123456789") != std::string::npos) {
    std::fprintf(stderr, "nexrun --agent: '%s' is not a host index (or SLURM_PROCID is not set)\n", me.c_str());
    return 1;
  }
  Agent agent(me);
  return agent.run();
}

}  // namespace nexar::launcher
