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
    : plan_(plan), status_(status), signals_(signals), hooks_(std::move(hooks)) {}

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
  ranks_.resize(specs.size());
  for (int i = 0; i < static_cast<int>(specs.size()); ++i) {
    SpawnedRank spawned;
    int exec_errno = 0;
    Status s = spawn_rank(specs[static_cast<size_t>(i)], &spawned, &exec_errno);
    if (!s.ok()) {
      report(strprintf("rank %d: %s", i, s.message().c_str()));
      *exit_code = exec_errno == ENOENT ? 127 : exec_errno != 0 ? 126 : 1;
      status_->job_failed();
      begin_teardown();
      wait();  // reaps and drains the ranks already started
      return false;
    }
    Rank& r = ranks_[i];
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
    status_->rank_started(i, spawned.pid);
    if (hooks_.rank_started) hooks_.rank_started(i, spawned.pid);
    NX_INFO(LAUNCH, "rank %d: pid %d", i, static_cast<int>(spawned.pid));
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

void JobRunner::on_signal(int signo) {
  if (signo == SIGCHLD) {
    reap();
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

void JobRunner::reap() {
  for (size_t i = 0; i < ranks_.size(); ++i) {
    Rank& r = ranks_[i];
    if (!r.alive) continue;
    int st = 0;
    pid_t p;
    do {
      p = waitpid(r.pid, &st, WNOHANG);
    } while (p < 0 && errno == EINTR);
    if (p == r.pid) on_rank_end(static_cast<int>(i), st);
  }
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
  if (!is_failure(wait_status)) return;
  // Ranks we are stopping fail as a consequence, not a cause: no line for them.
  if (tearing_down_) {
    if (!first_failure_code_) first_failure_code_ = exit_code_of(wait_status);
    return;
  }
  report(strprintf("rank %d (pid %d) %s", rank, static_cast<int>(r.pid), describe_wait_status(wait_status).c_str()));
  if (first_failure_code_) return;
  first_failure_code_ = exit_code_of(wait_status);
  status_->job_failed();
  if (!plan_.no_kill) begin_teardown();
}

bool JobRunner::any_output_open() const {
  for (const Rank& r : ranks_)
    if ((r.out && r.out->open()) || (r.err && r.err->open())) return true;
  return false;
}

int JobRunner::poll_timeout_ms() const {
  std::optional<Clock::time_point> next;
  for (const auto& d : {job_deadline_, kill_deadline_, drain_deadline_, next_tick_})
    if (d && (!next || *d < *next)) next = d;
  if (!next) return -1;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count();
  return ms < 0 ? 0 : static_cast<int>(ms);
}

void JobRunner::check_deadlines() {
  const auto now = Clock::now();
  if (next_tick_ && now >= *next_tick_) {
    next_tick_ = now + seconds(hooks_.tick_s);
    hooks_.on_tick();
  }
  if (job_deadline_ && now >= *job_deadline_) {
    job_deadline_.reset();
    if (alive_ > 0 && !tearing_down_) {
      timed_out_ = !first_failure_code_;  // the first cause decides the exit status
      report(strprintf("job timed out after %g s", plan_.timeout_s));
      status_->job_failed();
      begin_teardown();
    }
  }
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
  while (alive_ > 0 || (any_output_open() && (!drain_deadline_ || Clock::now() < *drain_deadline_))) {
    if (alive_ == 0 && !drain_deadline_) drain_deadline_ = Clock::now() + kDrainLimit;
    fds.clear();
    owners.clear();
    fds.push_back({signals_->fd(), POLLIN, 0});
    owners.push_back(nullptr);
    const bool watching = hooks_.watch_fd >= 0;
    if (watching) {
      fds.push_back({hooks_.watch_fd, POLLIN, 0});
      owners.push_back(nullptr);
    }
    for (Rank& r : ranks_) {
      for (OutputForwarder* f : {r.out.get(), r.err.get()}) {
        if (f && f->open()) {
          fds.push_back({f->fd(), POLLIN, 0});
          owners.push_back(f);
        }
      }
    }
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
      for (int signo : signals_->read_pending()) on_signal(signo);
    check_deadlines();
  }
  for (Rank& r : ranks_) {
    if (r.out) r.out->finish();
    if (r.err) r.err->finish();
  }
  status_->job_finished();
  if (timed_out_) return kTimeoutExit;
  return first_failure_code_.value_or(0);
}

}  // namespace nexar::launcher
