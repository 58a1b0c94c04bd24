// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/job_runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/log.h"
#include "launcher/exit_reason.h"
#include "launcher/rank_env.h"
#include "launcher/spawn.h"

namespace nexar::launcher {
namespace {

constexpr int kTimeoutExit = 124;  // as timeout(1)
// After the last rank is gone, how long output still held open by a leftover process may
// keep the launcher (the ranks' process groups are killed first, so normally no time).
constexpr auto kDrainLimit = std::chrono::milliseconds(500);

std::chrono::nanoseconds seconds(double s) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
}

}  // namespace

JobRunner::JobRunner(const JobPlan& plan, JobStatus* status, SignalEvents* signals, RunnerHooks hooks)
    : plan_(plan), status_(status), signals_(signals), hooks_(std::move(hooks)),
      ledger_(plan.recovery, plan.respawn) {}

JobRunner::~JobRunner() {
  // Never leave a rank behind, whatever path led here.
  if (alive_ > 0) {
    signal_alive(SIGKILL);
    for (Rank& r : ranks_)
      if (r.alive) waitpid(r.pid, nullptr, 0);
  }
}

void JobRunner::report(const std::string& line) {
  if (hooks_.report) {
    hooks_.report(line);
    return;
  }
  const std::string text = "nexrun: " + line + "\n";
  write_fully(STDERR_FILENO, text.data(), text.size());
}

bool JobRunner::start(const std::vector<SpawnSpec>& specs, int* exit_code) {
  started_ = Clock::now();
  if (plan_.timeout_s > 0) job_deadline_ = started_ + seconds(plan_.timeout_s);
  specs_ = specs;
  ranks_.resize(specs.size());
  for (int i = 0; i < static_cast<int>(specs.size()); ++i) {
    int exec_errno = 0;
    Status s = spawn_one(i, &exec_errno);
    if (!s.ok()) {
      report(strprintf("rank %d: %s", i, s.message().c_str()));
      *exit_code = exec_errno == ENOENT ? 127 : exec_errno != 0 ? 126 : 1;
      status_->job_failed();
      begin_teardown();
      wait();  // reaps and drains the ranks already started
      return false;
    }
  }
  return true;
}

Status JobRunner::spawn_one(int i, int* exec_errno) {
  Rank& r = ranks_[static_cast<size_t>(i)];
  SpawnSpec spec = specs_[static_cast<size_t>(i)];
  if (r.incarnation > 0) set_restart_count(&spec.env, r.incarnation);
  SpawnedRank spawned;
  NX_RETURN_IF_ERROR(spawn_rank(spec, &spawned, exec_errno));
  r.pid = spawned.pid;
  r.alive = true;
  ++alive_;
  if (hooks_.output) {
    auto sink = [this, i](bool is_err) {
      return [this, i, is_err](const char* d, size_t n, bool end) { hooks_.output(i, is_err, d, n, end); };
    };
    r.out = std::make_unique<OutputForwarder>(spawned.out_fd, sink(false));
    r.err = std::make_unique<OutputForwarder>(spawned.err_fd, sink(true));
  } else {
    const bool tag = plan_.tag_output;
    r.out = std::make_unique<OutputForwarder>(spawned.out_fd, STDOUT_FILENO, tag ? output_tag(i, false) : "");
    r.err = std::make_unique<OutputForwarder>(spawned.err_fd, STDERR_FILENO, tag ? output_tag(i, true) : "");
  }
  status_->rank_started(i, spawned.pid, r.incarnation);
  if (hooks_.rank_started) hooks_.rank_started(i, spawned.pid);
  NX_INFO(LAUNCH, "rank %d: pid %d (incarnation %d)", i, static_cast<int>(spawned.pid), r.incarnation);
  return Status::Ok();
}

bool JobRunner::respawn(int rank, int incarnation) {
  Rank& r = ranks_.at(static_cast<size_t>(rank));
  if (r.alive || tearing_down_) return false;
  // The ended process's pipes may still hold output: read them to their end.
  for (auto* f : {&r.out, &r.err})
    if (*f && (*f)->open()) retired_.push_back(std::move(*f));
  r.incarnation = incarnation;
  drain_deadline_.reset();
  int exec_errno = 0;
  if (Status s = spawn_one(rank, &exec_errno); !s.ok()) {
    report(strprintf("rank %d: replacement %d: %s", rank, incarnation, s.message().c_str()));
    return false;
  }
  return true;
}

void JobRunner::signal_alive(int signo) {
  for (Rank& r : ranks_)
    if (r.alive) kill(-r.pid, signo);  // the rank's process group: its children too
}

void JobRunner::begin_teardown() {
  if (tearing_down_) return;
  tearing_down_ = true;
  NX_INFO(LAUNCH, "stopping %d remaining rank(s)", alive_);
  if (plan_.grace_s <= 0) {
    signal_alive(SIGKILL);
    return;
  }
  signal_alive(SIGTERM);
  kill_deadline_ = Clock::now() + seconds(plan_.grace_s);
}

void JobRunner::on_signal(const SignalEvent& ev) {
  const int signo = ev.signo;
  if (signo == SIGCHLD) {
    reap(ev.pid);
    return;
  }
  if (signo == SIGUSR1 && hooks_.hang_report) {
    (void)hooks_.hang_report("SIGUSR1 to nexrun", false);
    return;
  }
  NX_INFO(LAUNCH, "forwarding signal %d (%s)", signo, strsignal(signo));
  if (signo == SIGINT || signo == SIGTERM) {
    if (++stop_requests_ > 1) {
      report("stopping the job at once (second stop signal)");
      tearing_down_ = true;
      kill_deadline_.reset();
      signal_alive(SIGKILL);
      return;
    }
  }
  signal_alive(signo);
}

void JobRunner::reap(pid_t first) {
  // The first failure decides nexrun's status and report: the child that raised the
  // SIGCHLD ended before any other merged into it, so it goes first; the rest follow in
  // rank order (their order is not known).
  auto try_reap = [this](size_t i) {
    Rank& r = ranks_[i];
    if (!r.alive) return;
    int st = 0;
    pid_t p;
    do {
      p = waitpid(r.pid, &st, WNOHANG);
    } while (p < 0 && errno == EINTR);
    if (p == r.pid) on_rank_end(static_cast<int>(i), st);
  };
  for (size_t i = 0; first > 0 && i < ranks_.size(); ++i)
    if (ranks_[i].alive && ranks_[i].pid == first) try_reap(i);
  for (size_t i = 0; i < ranks_.size(); ++i) try_reap(i);
}

void JobRunner::on_rank_end(int rank, int wait_status) {
  Rank& r = ranks_[rank];
  r.alive = false;
  --alive_;
  status_->rank_ended(rank, wait_status);
  NX_INFO(LAUNCH, "rank %d (pid %d) %s", rank, static_cast<int>(r.pid), describe_wait_status(wait_status).c_str());
  // The group may still hold processes the rank started: they go with it.
  kill(-r.pid, SIGKILL);
  if (hooks_.rank_ended) {
    hooks_.rank_ended(rank, wait_status);
    return;
  }
  const std::string what =
      strprintf("rank %d (pid %d) %s", rank, static_cast<int>(r.pid), describe_wait_status(wait_status).c_str());
  // While the first failure's report is collected the others fail as its consequence.
  switch (ledger_.on_end(wait_status, tearing_down_ || stop_report_.pending(), what)) {
    case FailureLedger::Action::kNothing:
    case FailureLedger::Action::kHold:  // reported by check_deadlines, or replaced by its cause
      return;
    case FailureLedger::Action::kReport:
      report(what);
      return;
    case FailureLedger::Action::kFail:
      report(what);
      // Before the others are stopped: what they were doing when it died.
      stop_after_report("exit: " + what, false);
      return;
    case FailureLedger::Action::kRespawn:
      report(what + ledger_.respawn_note(rank, r.incarnation + 1));
      respawn(rank, r.incarnation + 1);
      return;
  }
}

bool JobRunner::any_output_open() const {
  for (const Rank& r : ranks_)
    if ((r.out && r.out->open()) || (r.err && r.err->open())) return true;
  for (const auto& f : retired_)
    if (f->open()) return true;
  return false;
}

void JobRunner::stop_after_report(const std::string& reason, bool even_no_kill) {
  stop_report_.begin(hooks_.hang_report ? hooks_.hang_report(reason, true) : nullptr, !plan_.no_kill || even_no_kill);
  status_->job_failed();
  if (stop_report_.teardown_due()) begin_teardown();
}

int JobRunner::poll_timeout_ms() const {
  std::optional<Clock::time_point> next;
  for (const auto& d : {job_deadline_, kill_deadline_, drain_deadline_, next_tick_, ledger_.hold_until()})
    if (d && (!next || *d < *next)) next = d;
  const int limit = stop_report_.pending() ? ReportThenTeardown::kPollMs : -1;
  if (!next) return limit;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count();
  const int until_next = ms < 0 ? 0 : static_cast<int>(ms);
  return limit < 0 ? until_next : std::min(limit, until_next);
}

void JobRunner::check_deadlines() {
  if (std::optional<std::string> what = ledger_.due_hold(alive_ > 0)) {
    report(*what);
    stop_after_report("exit: " + *what, false);
  }
  const auto now = Clock::now();
  if (next_tick_ && now >= *next_tick_) {
    next_tick_ = now + seconds(hooks_.tick_s);
    hooks_.on_tick();
  }
  if (job_deadline_ && now >= *job_deadline_) {
    job_deadline_.reset();
    if (alive_ > 0 && !tearing_down_) {
      timed_out_ = ledger_.status() == 0;  // the first cause decides the exit status
      report(strprintf("job timed out after %g s", plan_.timeout_s));
      stop_after_report(strprintf("nexrun --timeout %g", plan_.timeout_s), true);
    }
  }
  if (stop_report_.teardown_due()) begin_teardown();
  if (kill_deadline_ && now >= *kill_deadline_) {
    kill_deadline_.reset();
    if (alive_ > 0) {
      NX_INFO(LAUNCH, "grace period over: SIGKILL to %d rank(s)", alive_);
      signal_alive(SIGKILL);
    }
  }
}

int JobRunner::wait() {
  std::vector<pollfd> fds;
  std::vector<OutputForwarder*> owners;
  reap();  // ranks that ended before the loop
  if (hooks_.on_tick && hooks_.tick_s > 0) next_tick_ = Clock::now();
  auto held = [this] { return hooks_.keep_open && !tearing_down_ && hooks_.keep_open(); };
  // A pending report is printed before nexrun goes on (its rendezvous ends after this).
  while (alive_ > 0 || held() || ledger_.holding() || stop_report_.pending() || (any_output_open() && (!drain_deadline_ || Clock::now() < *drain_deadline_))) {
    if (alive_ == 0 && !held() && !drain_deadline_) drain_deadline_ = Clock::now() + kDrainLimit;
    fds.clear();
    owners.clear();
    fds.push_back({signals_->fd(), POLLIN, 0});
    owners.push_back(nullptr);
    const bool watching = hooks_.watch_fd >= 0;
    if (watching) {
      fds.push_back({hooks_.watch_fd, POLLIN, 0});
      owners.push_back(nullptr);
    }
    auto watch = [&](OutputForwarder* f) {
      if (f && f->open()) {
        fds.push_back({f->fd(), POLLIN, 0});
        owners.push_back(f);
      }
    };
    for (Rank& r : ranks_) {
      watch(r.out.get());
      watch(r.err.get());
    }
    for (auto& f : retired_) watch(f.get());
    int n = poll(fds.data(), fds.size(), poll_timeout_ms());
    if (n < 0 && errno != EINTR) {
      report(strprintf("poll: %s", std::strerror(errno)));
      break;
    }
    const size_t first_rank_fd = watching ? 2 : 1;
    for (size_t i = first_rank_fd; n > 0 && i < fds.size(); ++i)
      if (fds[i].revents) owners[i]->on_readable();
    if (n > 0 && watching && fds[1].revents) hooks_.on_watch_readable();
    if (n > 0 && fds[0].revents)
      for (const SignalEvent& ev : signals_->read_pending()) on_signal(ev);
    check_deadlines();
  }
  for (Rank& r : ranks_) {
    if (r.out) r.out->finish();
    if (r.err) r.err->finish();
  }
  for (auto& f : retired_) f->finish();
  if (timed_out_ || ledger_.status() != 0) status_->job_failed();
  status_->job_finished();
  if (timed_out_) return kTimeoutExit;
  return ledger_.status();
}

}  // namespace nexar::launcher
