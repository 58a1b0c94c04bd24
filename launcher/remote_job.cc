// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/remote_job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bootstrap/address_select.h"
#include "core/log.h"
#include "core/params.h"
#include "core/text.h"
#include "launcher/exit_reason.h"
#include "launcher/spawn.h"

namespace nexar::launcher {
namespace {

constexpr int kTimeoutExit = 124;
constexpr double kHeartbeatS = 1.0;

std::chrono::steady_clock::duration secs(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Ranks start in the launcher's directory where it exists on their host (as mpirun does).
std::string working_directory() {
  char buf[4096];
  return getcwd(buf, sizeof(buf)) ? buf : "/";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

std::vector<std::string> agent_commands(const RemoteLaunch& how, const RankMap& map) {
  std::vector<std::string> out;
  const std::vector<int> used = map.used_hosts();
  if (how.use_srun) {
    std::string nodes;
    for (int h : used) nodes += (nodes.empty() ? "" : ",") + map.hosts[static_cast<size_t>(h)].name;
    // One step, one agent per node; --overlap: it shares the allocation's CPUs with the
    // ranks; --input=all: every agent reads the launcher's control lines.
    out.push_back(strprintf("srun --ntasks-per-node=1 --overlap --kill-on-bad-exit --input=all -N %zu -n %zu "
                            "--nodelist=%s %s --agent slurm",
                            used.size(), used.size(), nodes.c_str(), shell_quote(how.nexrun_path).c_str()));
    return out;
  }
  for (int h : used) {
    std::string prefix = replace_all(how.agent_template, "{host}", map.hosts[static_cast<size_t>(h)].name);
    out.push_back(prefix + " " + shell_quote(how.nexrun_path) + " --agent " + std::to_string(h));
  }
  return out;
}

RemoteJob::RemoteJob(const JobPlan& plan, const RankMap& map, const RemoteLaunch& how, JobStatus* status,
                     SignalEvents* signals, RankOutput* output)
    : plan_(plan), map_(map), how_(how), status_(status), signals_(signals), output_(output),
      hosts_(map.hosts.size()), used_(map.used_hosts()), ledger_(plan.recovery, plan.respawn),
      incarnation_(map.host_of_rank.size(), 0) {
  agent_timeout_s_ = param::NEXAR_AGENT_TIMEOUT.get();
  if (agent_timeout_s_ <= 0) agent_timeout_s_ = 10;
}

RemoteJob::~RemoteJob() {
  // Closing an agent's stdin stops its ranks; the agent processes themselves go now.
  for (Channel& c : channels_) {
    if (c.in_fd >= 0) close(c.in_fd);
    c.in_fd = -1;
  }
  for (Channel& c : channels_) {
    if (c.pid <= 0) continue;
    // Give agents a moment to stop their ranks (they see EOF), then no more.
    for (int i = 0; i < 50 && waitpid(c.pid, nullptr, WNOHANG) == 0; ++i) usleep(20000);
    if (kill(c.pid, 0) == 0) {
      kill(-c.pid, SIGKILL);
      waitpid(c.pid, nullptr, 0);
    }
  }
  rendezvous_.reset();
}

void RemoteJob::report(const std::string& line) {
  const std::string text = "nexrun: " + line + "\n";
  write_fully(STDERR_FILENO, text.data(), text.size());
}

Status RemoteJob::spawn_agents() {
  const std::vector<std::string> commands = agent_commands(how_, map_);
  for (size_t i = 0; i < commands.size(); ++i) {
    SpawnSpec spec{"/bin/sh", {"sh", "-c", commands[i]}, current_environment(), true};
    SpawnedRank s;
    int exec_errno = 0;
    NX_INFO(LAUNCH, "agent: %s", commands[i].c_str());
    NX_RETURN_IF_ERROR(spawn_rank(spec, &s, &exec_errno).with_context("starting a launch agent"));
    Channel c;
    c.pid = s.pid;
    c.in_fd = s.in_fd;
    c.out = std::make_unique<agent::LineReader>(s.out_fd);
    const size_t index = channels_.size();
    c.err = std::make_unique<OutputForwarder>(s.err_fd, [this, index](const char* d, size_t n, bool) {
      // An agent's own stderr (ssh's or srun's complaints): kept for the error line and
      // shown with --verbose.
      std::string text(d, n);
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      if (!text.empty()) channels_[index].last_err = text;
      NX_INFO(LAUNCH, "agent stderr: %s", text.c_str());
    });
    c.hosts = how_.use_srun ? used_ : std::vector<int>{used_[i]};
    for (int h : c.hosts) hosts_[static_cast<size_t>(h)].channel = static_cast<int>(index);
    channels_.push_back(std::move(c));
  }
  return Status::Ok();
}

void RemoteJob::send(Channel& c, const std::string& line) {
  if (c.in_fd < 0) return;
  if (!write_fully(c.in_fd, line.data(), line.size())) {
    close(c.in_fd);
    c.in_fd = -1;
  }
}

void RemoteJob::broadcast(const std::string& type, const std::vector<std::string>& fields) {
  const std::string line = agent::encode(type, "*", fields);
  for (Channel& c : channels_) send(c, line);
}

void RemoteJob::fail_host(int h, const std::string& cause, int code) {
  Host& host = hosts_[static_cast<size_t>(h)];
  if (host.lost) return;
  host.lost = true;
  if (!tearing_down_) report("host " + host_name(h) + ": " + cause);  // the first cause only
  ledger_.fatal(code);
  status_->job_failed();
  begin_teardown();
}

void RemoteJob::on_line(Channel& c, const std::string& line) {
  agent::Message m;
  char* end = nullptr;
  long h = agent::decode(line, &m) ? std::strtol(m.target.c_str(), &end, 10) : -1;
  bool mine = false;
  for (int x : c.hosts) mine = mine || x == h;
  if (!mine || !end || *end) {
    NX_INFO(LAUNCH, "ignoring a line from an agent: %.200s", line.c_str());
    return;
  }
  Host& host = hosts_[static_cast<size_t>(h)];
  host.last_heard = Clock::now();
  const auto& f = m.fields;
  if (m.type == "Y" && f.size() == 2) {
    host.ready = true;
    if (f[0] != "-") host.ips = split(f[0], ',');
    host.master_port = std::atoi(f[1].c_str());
  } else if (m.type == "F" && f.size() == 2) {
    fail_host(static_cast<int>(h), f[1], std::atoi(f[0].c_str()) ? std::atoi(f[0].c_str()) : 1);
  } else if (m.type == "P" && f.size() == 2) {
    const int rank = std::atoi(f[0].c_str());
    if (rank >= 0 && rank < static_cast<int>(incarnation_.size()))
      status_->rank_started(rank, static_cast<pid_t>(std::atol(f[1].c_str())), incarnation_[static_cast<size_t>(rank)]);
  } else if (m.type == "O" && f.size() == 4) {
    output_->write(std::atoi(f[0].c_str()), f[1] == "2", f[3].data(), f[3].size(), f[2] == "1");
  } else if (m.type == "X" && f.size() == 2) {
    const int rank = std::atoi(f[0].c_str()), st = std::atoi(f[1].c_str());
    if (rank < 0 || rank >= static_cast<int>(incarnation_.size())) return;
    status_->rank_ended(rank, st);
    --alive_ranks_;
    NX_INFO(LAUNCH, "rank %d on %s %s", rank, host_name(static_cast<int>(h)).c_str(), describe_wait_status(st).c_str());
    const std::string what = strprintf("rank %d (host %s) %s", rank, host_name(static_cast<int>(h)).c_str(),
                                       describe_wait_status(st).c_str());
    // While the first failure's report is collected the others fail as its consequence.
    const FailureLedger::Action action = ledger_.on_end(st, tearing_down_ || stop_report_.pending(), what);
    if (plan_.recovery && !tearing_down_ && is_failure(st)) {
      // The agent waits for this answer before it lets a host without ranks finish.
      const bool again = action == FailureLedger::Action::kRespawn;
      const int k = again ? ++incarnation_[static_cast<size_t>(rank)] : -1;
      send(c, agent::encode("A", m.target, {std::to_string(rank), std::to_string(k)}));
      if (again)
        report(what + ledger_.respawn_note(rank, k));
      else if (action == FailureLedger::Action::kReport)
        report(what);
      if (again) ++alive_ranks_;
      return;
    }
    if (action == FailureLedger::Action::kNothing || action == FailureLedger::Action::kHold) return;
    report(what);
    if (action != FailureLedger::Action::kFail) return;
    stop_after_report("exit: " + what, false);  // what the others were doing, before they stop
  } else if (m.type == "D") {
    host.done = true;
  }
}

void RemoteJob::on_channel_end(Channel& c) {
  c.open = false;
  int st = 0;
  std::string how = "its launch agent ended";
  if (waitpid(c.pid, &st, WNOHANG) == c.pid) {
    how += " (" + describe_wait_status(st) + ")";
    c.pid = -1;
  }
  for (int h : c.hosts) {
    if (hosts_[static_cast<size_t>(h)].done) continue;
    std::string cause = started_ ? "connection to the launch agent lost: " + how : how + " before the host was checked";
    if (!c.last_err.empty()) cause += ": " + c.last_err;
    fail_host(h, cause, 1);
  }
}

void RemoteJob::begin_teardown() {
  if (tearing_down_) return;
  tearing_down_ = true;
  broadcast("T", {});
  teardown_deadline_ = Clock::now() + secs(plan_.grace_s + agent_timeout_s_);
}

void RemoteJob::on_signal(int signo) {
  if (signo == SIGCHLD) return;  // agents are watched through their channels
  if (signo == SIGUSR1 && rendezvous_) {
    (void)rendezvous_->hangs().request("SIGUSR1 to nexrun");
    return;
  }
  if (signo == SIGINT || signo == SIGTERM) {
    if (++stop_requests_ > 1) {
      report("stopping the job at once (second stop signal)");
      broadcast("S", {std::to_string(SIGKILL)});
      begin_teardown();
      return;
    }
  }
  broadcast("S", {std::to_string(signo)});
}

void RemoteJob::check_deadlines() {
  if (std::optional<std::string> what = ledger_.due_hold(alive_ranks_ > 0)) {
    report(*what);
    stop_after_report("exit: " + *what, false);
  }
  const auto now = Clock::now();
  if (next_beat_ && now >= *next_beat_) {
    next_beat_ = now + secs(kHeartbeatS);
    broadcast("H", {});
    for (int h : used_) {
      const Host& host = hosts_[static_cast<size_t>(h)];
      if (!host.done && !host.lost && now - host.last_heard > secs(agent_timeout_s_))
        fail_host(h, strprintf("launch agent silent for %.0f s (host or its connection lost)", agent_timeout_s_), 1);
    }
  }
  if (job_deadline_ && now >= *job_deadline_) {
    job_deadline_.reset();
    if (!tearing_down_) {
      timed_out_ = ledger_.status() == 0;
      report(strprintf("job timed out after %g s", plan_.timeout_s));
      stop_after_report(strprintf("nexrun --timeout %g", plan_.timeout_s), true);
    }
  }
  if (stop_report_.teardown_due()) begin_teardown();
}

void RemoteJob::stop_after_report(const std::string& reason, bool even_no_kill) {
  stop_report_.begin(rendezvous_ ? rendezvous_->hangs().request(reason, true) : nullptr, !plan_.no_kill || even_no_kill);
  status_->job_failed();
  if (stop_report_.teardown_due()) begin_teardown();
}

void RemoteJob::poll_once(int timeout_ms) {
  std::vector<pollfd> fds{{signals_->fd(), POLLIN, 0}};
  std::vector<std::pair<size_t, bool>> owners{{0, false}};  // channel, is stderr
  for (size_t i = 0; i < channels_.size(); ++i) {
    if (channels_[i].open) {
      fds.push_back({channels_[i].out->fd(), POLLIN, 0});
      owners.push_back({i, false});
    }
    if (channels_[i].err->open()) {
      fds.push_back({channels_[i].err->fd(), POLLIN, 0});
      owners.push_back({i, true});
    }
  }
  int n = poll(fds.data(), fds.size(), timeout_ms);
  if (n <= 0) return;
  if (fds[0].revents)
    for (const SignalEvent& ev : signals_->read_pending()) on_signal(ev.signo);
  for (size_t i = 1; i < fds.size(); ++i) {
    if (!fds[i].revents) continue;
    Channel& c = channels_[owners[i].first];
    if (owners[i].second) {
      c.err->on_readable();
      continue;
    }
    std::vector<std::string> lines;
    agent::LineReader::Result r = c.out->read(&lines);
    for (const std::string& l : lines) on_line(c, l);
    if (r != agent::LineReader::Result::MORE) {
      if (c.err->open()) c.err->finish();  // its last words explain the end
      on_channel_end(c);
    }
  }
}

Status RemoteJob::choose_rendezvous_address(std::string* ip) {
  // --iface / --addr name the launcher's side too when it has such an address.
  if (!plan_.iface.empty() || !plan_.addr_cidr.empty()) {
    std::vector<std::string> mine = bootstrap::interface_addresses(plan_.iface, plan_.addr_cidr);
    if (!mine.empty()) {
      *ip = mine.front();
      return Status::Ok();
    }
  }
  // Else the route toward the first host's first address: the hosts reach us the same way.
  for (int h : used_)
    for (const std::string& target : hosts_[static_cast<size_t>(h)].ips) {
      if (bootstrap::route_source_to(target, ip).ok() && !bootstrap::is_loopback_ip(*ip)) return Status::Ok();
    }
  return Status(NEXAR_ERR_SYSTEM, "no address of this host reaches the hosts' addresses (use --iface or --addr)");
}

bool RemoteJob::start(JobEnvironment* job, const std::vector<std::vector<std::string>>& rank_env,
                      const std::vector<std::vector<std::string>>& argv, const std::vector<std::string>& pems,
                      const std::string& launcher_credential, int* exit_code) {
  *exit_code = 1;
  if (Status s = spawn_agents(); !s.ok()) {
    report(s.to_string());
    return false;
  }
  const auto t0 = Clock::now();
  for (int h : used_) hosts_[static_cast<size_t>(h)].last_heard = t0;
  // The job description: J once per channel, then each host's ranks.
  for (Channel& c : channels_) {
    send(c, agent::encode("J", "*", {job->job_id, strprintf("%g", plan_.grace_s), strprintf("%g", kHeartbeatS),
                                      strprintf("%g", agent_timeout_s_), plan_.iface.empty() ? "-" : plan_.iface,
                                      plan_.addr_cidr.empty() ? "-" : plan_.addr_cidr, working_directory(),
                                      plan_.recovery ? "1" : "0"}));
    for (int h : c.hosts) {
      const std::string target = std::to_string(h);
      for (int r : map_.ranks_of_host[static_cast<size_t>(h)]) {
        const std::string rank = std::to_string(r);
        std::vector<std::string> fields{rank};
        fields.insert(fields.end(), argv[static_cast<size_t>(r)].begin(), argv[static_cast<size_t>(r)].end());
        send(c, agent::encode("R", target, fields));
        fields = {rank};
        fields.insert(fields.end(), rank_env[static_cast<size_t>(r)].begin(), rank_env[static_cast<size_t>(r)].end());
        send(c, agent::encode("E", target, fields));
        send(c, agent::encode("K", target, {rank, pems[static_cast<size_t>(r)]}));
      }
      send(c, agent::encode("C", target, {}));
    }
  }
  // Every host checked, within the limit.
  const auto deadline = t0 + secs(agent_timeout_s_);
  auto all_ready = [this] {
    for (int h : used_)
      if (!hosts_[static_cast<size_t>(h)].ready) return false;
    return true;
  };
  while (!all_ready() && !tearing_down_ && stop_requests_ == 0 && Clock::now() < deadline) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count() + 1;
    poll_once(static_cast<int>(ms));
  }
  if (!all_ready()) {
    if (!ledger_.any_failure()) {
      for (int h : used_)
        if (!hosts_[static_cast<size_t>(h)].ready) {
          const Channel& c = channels_[static_cast<size_t>(hosts_[static_cast<size_t>(h)].channel)];
          report(strprintf("host %s: launch agent did not answer within %g s%s%s", host_name(h).c_str(),
                           agent_timeout_s_, c.last_err.empty() ? "" : ": ", c.last_err.c_str()));
          break;
        }
    }
    *exit_code = ledger_.any_failure() ? ledger_.status() : stop_requests_ ? 128 + SIGTERM : 1;
    return false;
  }
  NX_INFO(LAUNCH, "%zu host(s) checked in %.3f s", used_.size(),
          std::chrono::duration<double>(Clock::now() - t0).count());
  std::string ip;
  if (Status s = choose_rendezvous_address(&ip); !s.ok()) {
    report(s.to_string());
    return false;
  }
  rendezvous_ = std::make_unique<RendezvousService>();
  if (Status s = rendezvous_->start(launcher_credential, status_, ip); !s.ok()) {
    report(s.to_string());
    return false;
  }
  job->rendezvous = rendezvous_->address();
  const Host& first = hosts_[static_cast<size_t>(map_.host_of_rank.at(0))];
  const std::string master = first.ips.empty() ? ip : first.ips.front();
  broadcast("G", {"NEXAR_RENDEZVOUS=" + job->rendezvous, "MASTER_ADDR=" + master,
                  "MASTER_PORT=" + std::to_string(first.master_port)});
  started_ = true;
  alive_ranks_ = static_cast<int>(map_.host_of_rank.size());
  if (plan_.timeout_s > 0) job_deadline_ = Clock::now() + secs(plan_.timeout_s);
  next_beat_ = Clock::now();
  NX_INFO(LAUNCH, "job %s started on %zu host(s), rendezvous %s", job->job_id.c_str(), used_.size(),
          job->rendezvous.c_str());
  return true;
}

int RemoteJob::wait() {
  auto all_done = [this] {
    for (int h : used_) {
      const Host& host = hosts_[static_cast<size_t>(h)];
      if (!host.done && !host.lost) return false;
    }
    return true;
  };
  while (!all_done() || ledger_.holding() || stop_report_.pending()) {
    std::optional<Clock::time_point> next = next_beat_;
    for (const auto& d : {job_deadline_, teardown_deadline_, ledger_.hold_until()})
      if (d && (!next || *d < *next)) next = d;
    int ms = stop_report_.pending() ? ReportThenTeardown::kPollMs : -1;
    if (next) {
      const int until_next = static_cast<int>(
          std::max<long>(0, std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count()));
      ms = ms < 0 ? until_next : std::min(ms, until_next);
    }
    poll_once(ms);
    check_deadlines();
    if (teardown_deadline_ && Clock::now() >= *teardown_deadline_) {
      for (int h : used_)
        if (!hosts_[static_cast<size_t>(h)].done && !hosts_[static_cast<size_t>(h)].lost)
          fail_host(h, "launch agent did not stop its ranks in time", 1);
      break;
    }
  }
  if (timed_out_ || ledger_.status() != 0) status_->job_failed();
  status_->job_finished();
  if (timed_out_) return kTimeoutExit;
  return ledger_.status();
}

}  // namespace nexar::launcher
