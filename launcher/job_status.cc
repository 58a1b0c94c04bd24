// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/job_status.h"

#include <sys/wait.h>

#include "core/status.h"
#include "launcher/exit_reason.h"
#include "rendezvous/service.h"

namespace nexar::launcher {

JobStatus::JobStatus(std::string job_id, int world_size)
    : job_id_(std::move(job_id)), ranks_(static_cast<size_t>(world_size)) {}

void JobStatus::rank_started(int rank, pid_t pid, int incarnation) {
  std::lock_guard<std::mutex> lock(mu_);
  Rank& r = ranks_.at(rank);
  if (incarnation > 0) ++replacements_;
  r = Rank{};
  r.pid = pid;
  r.incarnation = incarnation;
}

void JobStatus::new_attempt(int attempt) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Rank& r : ranks_) r = Rank{};
  restarts_ = attempt;
  replacements_ = 0;
  state_ = State::RUNNING;
}

void JobStatus::rank_ended(int rank, int wait_status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Rank& r = ranks_.at(rank);
    r.ended = true;
    r.wait_status = wait_status;
  }
  if (end_observer_) end_observer_(rank);
}

void JobStatus::job_failed() {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = State::FAILED;
}

void JobStatus::job_finished() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::RUNNING) state_ = State::FINISHED;
}

std::string JobStatus::end_note(int rank) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Rank& r = ranks_.at(static_cast<size_t>(rank));
  return r.ended ? describe_wait_status(r.wait_status) : std::string();
}

void JobStatus::set_report(std::string report, std::vector<std::string> current) {
  std::lock_guard<std::mutex> lock(mu_);
  report_ = std::move(report);
  for (size_t i = 0; i < ranks_.size() && i < current.size(); ++i) ranks_[i].current = std::move(current[i]);
}

std::string JobStatus::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  static const char* const state_names[] = {"running", "failed", "finished"};
  // job_id is hex digits (make_job_id): nothing to escape.
  std::string out = strprintf(R"({"job_id":"%s","world_size":%zu,"state":"%s","restarts":%d,"replacements":%d,"ranks":[)",
                              job_id_.c_str(), ranks_.size(), state_names[static_cast<int>(state_)], restarts_,
                              replacements_);
  for (size_t i = 0; i < ranks_.size(); ++i) {
    const Rank& r = ranks_[i];
    const char* state = "starting";
    std::string status = "null";
    if (r.ended && WIFSIGNALED(r.wait_status)) {
      state = "signaled";
      status = std::to_string(WTERMSIG(r.wait_status));
    } else if (r.ended) {
      state = "exited";
      status = std::to_string(WEXITSTATUS(r.wait_status));
    } else if (r.pid > 0) {
      state = "running";
    }
    const std::string current = r.current.empty() ? "null" : "\"" + rendezvous::json_escape(r.current) + "\"";
    out += strprintf(R"(%s{"rank":%zu,"pid":%d,"state":"%s","status":%s,"incarnation":%d,"current":%s})", i ? "," : "",
                     i, static_cast<int>(r.pid), state, status.c_str(), r.incarnation, current.c_str());
  }
  out += "]";
  if (!report_.empty()) out += ",\"report\":\"" + rendezvous::json_escape(report_) + "\"";
  out += "}";
  return out;
}

}  // namespace nexar::launcher
