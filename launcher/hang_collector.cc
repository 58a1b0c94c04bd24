// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/hang_collector.h"

#include <chrono>
#include <mutex>

#include "core/log.h"
#include "core/params.h"
#include "launcher/hang_report.h"
#include "launcher/json_value.h"
#include "rendezvous/service.h"

namespace nexar::launcher {

using Clock = std::chrono::steady_clock;

namespace {
// A round's key is watched this long, then watched again (the store needs a deadline).
constexpr auto kIdleWatch = std::chrono::hours(1);
constexpr auto kRecent = std::chrono::seconds(10);

Clock::duration report_timeout() {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(0.1, param::NEXAR_REPORT_TIMEOUT.get())));
}
}  // namespace

struct HangCollector::State : std::enable_shared_from_this<State> {
  JobStatus* status;
  std::function<void(const std::string&)> print;
  int world_size;
  // Progress thread only.
  int64_t round = 1;
  bool collecting = false;
  std::string reason;
  std::vector<RankAnswer> answers;
  std::vector<bool> settled;
  int pending = 0;
  // Rounds finished, for request's test: any thread, under mu.
  std::mutex mu;
  int64_t finished = 0;
  Clock::time_point finished_at;  // progress thread

  std::string key(const char* what) const { return strprintf("%s/%lld", what, static_cast<long long>(round)); }

  void watch_round(rendezvous::Service& svc) {
    std::weak_ptr<State> weak = weak_from_this();
    const int64_t r = round;
    svc.watch(key("dump"), Clock::now() + kIdleWatch, [weak, &svc, r](bool found, const std::string& value) {
      auto self = weak.lock();
      if (!self || r != self->round) return;
      if (found) {
        self->begin(svc, value);
      } else {
        self->watch_round(svc);
      }
    });
  }

  void begin(rendezvous::Service& svc, const std::string& why) {
    collecting = true;
    reason = why.empty() ? "a request" : why;
    answers.assign(static_cast<size_t>(world_size), RankAnswer{});
    settled.assign(static_cast<size_t>(world_size), false);
    pending = world_size;
    const auto timeout = report_timeout();
    const std::string late = strprintf("did not answer within %.3g s", std::chrono::duration<double>(timeout).count());
    const int64_t r = round;
    std::weak_ptr<State> weak = weak_from_this();
    for (int rank = 0; rank < world_size; ++rank) {
      answers[static_cast<size_t>(rank)].rank = rank;
      const std::string ended = status->end_note(rank);
      if (!ended.empty()) {
        answers[static_cast<size_t>(rank)].note = ended;
        settled[static_cast<size_t>(rank)] = true;
        --pending;
        continue;
      }
      svc.watch(strprintf("record/%lld/%d", static_cast<long long>(r), rank), Clock::now() + timeout,
                [weak, &svc, r, rank, late](bool found, const std::string& value) {
                  auto self = weak.lock();
                  if (self && r == self->round && self->collecting) self->settle(svc, rank, found ? &value : nullptr, late);
                });
    }
    if (pending == 0 && collecting) finish(svc);  // (a watch may have finished it already)
  }

  // Rank's answer is in: its record, or (record null) why there is none. Once per rank.
  void settle(rendezvous::Service& svc, int rank, const std::string* record, const std::string& note) {
    if (settled[static_cast<size_t>(rank)]) return;
    settled[static_cast<size_t>(rank)] = true;
    RankAnswer& a = answers[static_cast<size_t>(rank)];
    a.answered = record != nullptr;
    if (record) a.record = *record;
    else a.note = note;
    if (--pending == 0 && collecting) finish(svc);
  }

  void finish(rendezvous::Service& svc) {
    bool stuck = false;
    const std::string report = hang_report(reason, world_size, answers, &stuck);
    std::vector<std::string> current(static_cast<size_t>(world_size));
    for (const RankAnswer& a : answers) {
      JsonValue doc;
      std::string error;
      if (a.answered && parse_json(a.record, &doc, &error)) current[static_cast<size_t>(a.rank)] = doc["current"].text();
    }
    status->set_report(report, current);
    const bool quiet = reason.rfind("status", 0) == 0 || (reason.rfind("exit:", 0) == 0 && !stuck);
    if (!quiet) print(report);
    NX_INFO(LAUNCH, "hang-report round %lld done (%s)", static_cast<long long>(round), reason.c_str());
    for (int rank = 0; rank < world_size; ++rank)
      svc.store().erase(strprintf("record/%lld/%d", static_cast<long long>(round), rank));
    svc.store().set(key("dump") + "/done", "1");
    collecting = false;
    finished_at = Clock::now();
    ++round;
    svc.store().set("dump/next", std::to_string(round));
    watch_round(svc);
    std::lock_guard<std::mutex> lock(mu);
    ++finished;
  }
};

HangCollector::HangCollector(JobStatus* status, std::function<void(const std::string&)> print)
    : state_(std::make_shared<State>()) {
  state_->status = status;
  state_->print = std::move(print);
  state_->world_size = status->world_size();
}

HangCollector::~HangCollector() = default;

void HangCollector::attach(rendezvous::Server* server) {
  server_ = server;
  std::shared_ptr<State> s = state_;
  server->post([s](rendezvous::Service& svc) {
    svc.store().set("dump/next", std::to_string(s->round));
    s->watch_round(svc);
  });
}

void HangCollector::rank_ended(int rank) {
  if (!server_) return;
  std::shared_ptr<State> s = state_;
  server_->post([s, rank](rendezvous::Service& svc) {
    if (!s->collecting || rank < 0 || rank >= s->world_size) return;
    s->settle(svc, rank, nullptr, s->status->end_note(rank));
  });
}

std::function<bool()> HangCollector::request(const std::string& reason, bool if_nexar) {
  if (!server_ || param::NEXAR_REPORT_TIMEOUT.get() <= 0) return [] { return true; };
  int64_t before;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    before = state_->finished;
  }
  std::shared_ptr<State> s = state_;
  server_->post([s, reason, if_nexar](rendezvous::Service& svc) {
    // if_nexar rounds (a failure, --timeout) are skipped when the ranks do not use nexar,
    // and right after a report: the failure is the end of the hang just reported.
    const bool recent = s->finished_at != Clock::time_point() && Clock::now() - s->finished_at < kRecent;
    if (if_nexar && (!svc.store().get("addr/0") || recent)) {
      std::lock_guard<std::mutex> lock(s->mu);
      ++s->finished;  // no round: the caller's test turns true at once
    } else if (!s->collecting) {
      svc.store().set(s->key("dump"), reason);  // wakes watch_round
    }
  });
  const auto give_up = Clock::now() + report_timeout() + std::chrono::seconds(1);
  return [s, before, give_up] {
    if (Clock::now() >= give_up) return true;
    std::lock_guard<std::mutex> lock(s->mu);
    return s->finished > before;
  };
}

}  // namespace nexar::launcher
