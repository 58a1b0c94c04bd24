// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/hang_responder.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "core/log.h"
#include "core/params.h"

namespace nexar::bootstrap {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {
// How long one long poll lasts before it is renewed (a request a minute per idle rank).
constexpr milliseconds kPoll(30000);
// A rank that answered a round this recently asks for none of its own: the ranks of one
// hang all fail within moments of each other, and one report covers them.
constexpr auto kRecent = std::chrono::seconds(10);
// The largest record the rendezvous takes (rendezvous.h: values up to 1 MiB).
constexpr size_t kMaxRecord = (1u << 20) - 1024;
}  // namespace

struct HangResponder::State : std::enable_shared_from_this<State> {
  std::mutex mu;
  rendezvous::Client* client = nullptr;  // null once stopped
  int rank = 0;
  std::function<std::string()> snapshot;
  int64_t awaited = 1;        // the round the outstanding poll waits for
  int64_t last_answered = 0;  // 0: none yet
  Clock::time_point answered_at;

  // With mu held.
  void poll() {
    std::weak_ptr<State> weak = weak_from_this();
    const int64_t round = awaited;
    client->wait_async("dump/" + std::to_string(round), kPoll, [weak, round](const Status& st, const std::string&) {
      if (auto self = weak.lock()) self->on_round(round, st);
    });
  }

  // Progress thread: round appeared (st ok), the poll expired (TIMEOUT) or the
  // connection is gone (anything else: stop polling).
  void on_round(int64_t round, const Status& st) {
    std::lock_guard<std::mutex> lock(mu);
    if (!client || round != awaited) return;
    if (!st.ok() && st.code() != NEXAR_ERR_TIMEOUT) {
      NX_INFO(BOOT, "rank %d: hang-report polls end: %s", rank, st.to_string().c_str());
      return;
    }
    if (st.ok()) {
      std::string record = snapshot();
      if (record.size() > kMaxRecord)
        record = strprintf(R"({"rank":%d,"error":"record of %zu bytes exceeds the rendezvous limit"})", rank,
                           record.size());
      client->set_async(strprintf("record/%lld/%d", static_cast<long long>(round), rank), record,
                        [](const Status&, const std::string&) {});
      last_answered = round;
      answered_at = Clock::now();
      awaited = round + 1;
      NX_INFO(BOOT, "rank %d: answered hang-report round %lld", rank, static_cast<long long>(round));
    }
    poll();
  }
};

HangResponder::HangResponder(rendezvous::Client* client, int rank, int64_t first_round,
                             std::function<std::string()> snapshot)
    : state_(std::make_shared<State>()) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->client = client;
  state_->rank = rank;
  state_->awaited = std::max<int64_t>(1, first_round);
  state_->snapshot = std::move(snapshot);
  state_->poll();
}

void HangResponder::stop() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->client = nullptr;
}

void HangResponder::request(const std::string& reason, bool wait) {
  const double limit_s = param::NEXAR_REPORT_TIMEOUT.get();
  if (limit_s <= 0) return;
  const auto bound = milliseconds(static_cast<int64_t>(limit_s * 1000)) + milliseconds(1000);
  rendezvous::Client* client;
  int64_t round;
  bool ask;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    client = state_->client;
    ask = state_->last_answered == 0 || Clock::now() - state_->answered_at > kRecent;
    round = ask ? state_->awaited : state_->last_answered;
  }
  if (!client) return;
  const std::string key = "dump/" + std::to_string(round);
  if (!wait) {
    if (ask) client->set_async(key, reason, [](const Status&, const std::string&) {});
    return;
  }
  if (ask && !client->set(key, reason, milliseconds(1000)).ok()) return;
  std::string ignored;
  Status st = client->wait(key + "/done", &ignored, bound);
  NX_INFO(BOOT, "hang report round %lld %s", static_cast<long long>(round),
          st.ok() ? "printed" : st.to_string().c_str());
}

}  // namespace nexar::bootstrap
