// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/ft_service.h"

#include <algorithm>

#include "core/fault.h"
#include "core/log.h"
#include "transport/shm/shm_hub.h"

namespace nexar::comm::ft {
namespace {
constexpr uint32_t kKeptInstances = 64;
constexpr size_t kMaxEarly = 4096;
}  // namespace

Service::Service(p2p::Engine* engine) : engine_(engine) { engine_->set_control_handler(this); }

Service::~Service() { engine_->set_control_handler(nullptr); }

void Service::attach(uint32_t comm_id, const std::vector<int>& members, int my_rank) {
  std::vector<Out> out;
  std::vector<int> fenced;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CommFt& c = comms_[comm_id];
    if (c.retired) c = CommFt{};  // an earlier communicator's id, used again
    c.attached = true;
    c.members = members;
    c.me = my_rank;
    c.failed.assign(members.size(), false);
    for (size_t i = 0; i < members.size(); ++i) {
      c.comm_rank[members[i]] = static_cast<int>(i);
      if (engine_->is_lost(members[i])) c.failed[i] = true;
    }
    std::vector<std::pair<int, Msg>> early = std::move(c.early);
    c.early.clear();
    for (auto& [src, m] : early) handle_locked(c, src, m, &out, &fenced);
    progress_locked(c, comm_id, &out);
  }
  send_all(out);
  fence(fenced, -1);
}

void Service::detach(uint32_t comm_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = comms_.find(comm_id);
  if (it == comms_.end()) return;
  // Decisions stay to answer members still in an agreement this rank has left (their
  // coordinator died and a successor asks); a communicator without any is forgotten.
  bool any = false;
  for (auto& [k, in] : it->second.inst) any = any || in.decided;
  if (!any) {
    comms_.erase(it);
    return;
  }
  it->second.retired = true;
  for (auto i = it->second.inst.begin(); i != it->second.inst.end();)
    i = i->second.decided ? std::next(i) : it->second.inst.erase(i);
}

std::vector<int> Service::failed(uint32_t comm_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = comms_.find(comm_id);
  std::vector<int> r;
  if (it == comms_.end()) return r;
  for (size_t i = 0; i < it->second.failed.size(); ++i)
    if (it->second.failed[i]) r.push_back(static_cast<int>(i));
  return r;
}

int Service::coordinator_locked(const CommFt& c) const {
  for (size_t i = 0; i < c.failed.size(); ++i)
    if (!c.failed[i]) return static_cast<int>(i);
  return -1;
}

std::vector<int32_t> Service::failed_list_locked(const CommFt& c) const {
  std::vector<int32_t> r;
  for (size_t i = 0; i < c.failed.size(); ++i)
    if (c.failed[i]) r.push_back(static_cast<int32_t>(i));
  return r;
}

bool Service::mark_failed_locked(CommFt& c, int r) {
  if (r < 0 || static_cast<size_t>(r) >= c.failed.size() || c.failed[static_cast<size_t>(r)]) return false;
  if (r == c.me) return false;  // reported by someone else: handled as exclusion
  c.failed[static_cast<size_t>(r)] = true;
  return true;
}

Status Service::agree(uint32_t comm_id, int32_t flag, p2p::Clock::time_point deadline, Decision* out_d) {
  uint32_t k;
  std::vector<Out> out;
  std::vector<int> voters;  // world ranks whose votes this rank, the coordinator, waits for
  {
    std::lock_guard<std::mutex> lock(mu_);
    CommFt& c = comms_[comm_id];
    if (!c.attached) return Status(NEXAR_ERR_INTERNAL, "agreement on a communicator the service does not know");
    k = c.next_instance++;
    while (!c.inst.empty() && c.inst.begin()->first + kKeptInstances < k) c.inst.erase(c.inst.begin());
    Instance& in = c.inst[k];
    in.entered = true;
    in.flag = flag;
    progress_locked(c, comm_id, &out);
    if (coordinator_locked(c) == c.me)
      for (size_t r = 0; r < c.members.size(); ++r)
        if (!c.failed[r] && static_cast<int>(r) != c.me) voters.push_back(c.members[r]);
  }
  send_all(out);
  // With NEXAR_CONNECT=lazy a voter that died before it ever talked to this rank is
  // noticed only once a connection to it exists.
  for (int w : voters) engine_->expect_from(w);
  fault::kill_point("agreement");  // testing only (NEXAR_FAULT_KILL): its vote sent, undecided
  int excluded_by = -1;
  const auto done = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    CommFt& c = comms_[comm_id];
    excluded_by = c.excluded_by;
    auto it = c.inst.find(k);
    if (it != c.inst.end() && it->second.decided) {
      *out_d = it->second.d;
      return true;
    }
    return excluded_by >= 0;
  };
  if (!engine_->waiter().wait(done, deadline))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("fault-tolerant agreement %u did not decide in time", k));
  if (excluded_by >= 0)
    return Status(NEXAR_ERR_PEER_LOST,
                  strprintf("rank %d declared this rank failed: it is no longer a member", excluded_by));
  return Status::Ok();
}

void Service::on_control(int src, const uint8_t* data, size_t bytes) {
  std::vector<int> fenced;
  Msg m;
  if (!decode(data, bytes, &m)) {
    NX_WARN(P2P, "malformed fault-tolerance message (%zu bytes) from rank %d dropped", bytes, src);
    return;
  }
  std::vector<Out> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CommFt& c = comms_[m.comm_id];
    if (!c.attached) {
      if (c.early.size() < kMaxEarly) c.early.emplace_back(src, std::move(m));
      return;
    }
    const uint32_t id = m.comm_id;
    handle_locked(c, src, m, &out, &fenced);
    progress_locked(c, id, &out);
  }
  send_all(out);
  fence(fenced, src);
}

void Service::fence(const std::vector<int>& world_ranks, int reporter) {
  // The engine fails what still waits on them (its on_lost call finds nothing new here).
  for (int w : world_ranks)
    engine_->on_peer_lost(w, Status(NEXAR_ERR_PEER_LOST, reporter >= 0 ? strprintf("rank %d reported rank %d failed", reporter, w)
                                                                      : strprintf("a member reported rank %d failed", w)));
}

void Service::on_lost(int world_rank) {
  std::vector<Out> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fail_world_locked(world_rank, &out);
  }
  send_all(out);
}

void Service::fail_world_locked(int world_rank, std::vector<Out>* out) {
  for (auto& [id, c] : comms_) {
    if (!c.attached) continue;
    auto it = c.comm_rank.find(world_rank);
    if (it != c.comm_rank.end() && mark_failed_locked(c, it->second)) progress_locked(c, id, out);
  }
}

void Service::handle_locked(CommFt& c, int src_world, Msg& m, std::vector<Out>* out, std::vector<int>* fenced) {
  auto it = c.comm_rank.find(src_world);
  if (it == c.comm_rank.end()) return;
  const int from = it->second;
  if (c.failed[static_cast<size_t>(from)]) return;  // fenced
  // What the sender knows failed is failed here too (a QUERY's list fences every rank
  // below the querier before this rank answers it).
  for (int32_t r : m.failed) {
    if (r == c.me && c.excluded_by < 0) {
      c.excluded_by = from;
      engine_->waiter().ring();
    }
    if (r >= 0 && static_cast<size_t>(r) < c.failed.size() && r != c.me && !c.failed[static_cast<size_t>(r)])
      fenced->push_back(c.members[static_cast<size_t>(r)]);
  }
  // A process failed for one communicator is failed for all of them.
  for (int w : *fenced) fail_world_locked(w, out);
  if (c.retired && !c.inst.count(m.instance)) return;  // only its decisions are served
  Instance& in = c.inst[m.instance];
  auto reply = [&](MsgType t, int32_t flag, std::vector<int32_t> failed) {
    out->push_back(Out{src_world, Msg{t, m.comm_id, m.instance, flag, std::move(failed)}});
  };
  switch (m.type) {
    case MsgType::CONTRIB:
      in.contribs[from] = m.flag;
      if (in.decided) reply(MsgType::DECIDE, in.d.flag, std::vector<int32_t>(in.d.failed.begin(), in.d.failed.end()));
      break;
    case MsgType::DECIDE:
      if (!in.decided) {
        in.decided = true;
        in.d.flag = m.flag;
        in.d.failed.assign(m.failed.begin(), m.failed.end());
        engine_->waiter().ring();
        // Adopted as coordinator (an answer to our QUERY): everyone gets it.
        if (coordinator_locked(c) == c.me)
          for (size_t r = 0; r < c.members.size(); ++r)
            if (!c.failed[r] && static_cast<int>(r) != c.me)
              out->push_back(Out{c.members[r], Msg{MsgType::DECIDE, m.comm_id, m.instance, m.flag, m.failed}});
      }
      break;
    case MsgType::QUERY:
      if (in.decided)
        reply(MsgType::DECIDE, in.d.flag, std::vector<int32_t>(in.d.failed.begin(), in.d.failed.end()));
      else if (in.entered)
        reply(MsgType::CONTRIB, in.flag, failed_list_locked(c));
      break;
  }
}

void Service::progress_locked(CommFt& c, uint32_t id, std::vector<Out>* out) {
  if (!c.attached || c.retired || c.excluded_by >= 0) return;
  const int coord = coordinator_locked(c);
  for (auto& [k, in] : c.inst) {
    if (!in.entered || in.decided) continue;
    if (coord != c.me) {
      if (in.sent_to != coord) {
        in.sent_to = coord;
        out->push_back(Out{c.members[static_cast<size_t>(coord)], Msg{MsgType::CONTRIB, id, k, in.flag, failed_list_locked(c)}});
      }
      continue;
    }
    // This rank coordinates. Ranks below it failed: an earlier coordinator may have
    // decided, so ask everyone first.
    if (c.me > 0 && !in.queried) {
      in.queried = true;
      for (size_t r = 0; r < c.members.size(); ++r)
        if (!c.failed[r] && static_cast<int>(r) != c.me)
          out->push_back(Out{c.members[r], Msg{MsgType::QUERY, id, k, 0, failed_list_locked(c)}});
    }
    bool all = true;
    for (size_t r = 0; r < c.members.size() && all; ++r)
      if (!c.failed[r] && static_cast<int>(r) != c.me && !in.contribs.count(static_cast<int>(r))) all = false;
    if (all) decide_locked(c, id, k, in, out);
  }
}

void Service::decide_locked(CommFt& c, uint32_t id, uint32_t k, Instance& in, std::vector<Out>* out) {
  int32_t flag = in.flag;
  for (auto& [r, f] : in.contribs)
    if (!c.failed[static_cast<size_t>(r)]) flag &= f;
  in.decided = true;
  in.d.flag = flag;
  in.d.failed.clear();
  std::vector<int32_t> failed = failed_list_locked(c);
  in.d.failed.assign(failed.begin(), failed.end());
  engine_->waiter().ring();
  for (size_t r = 0; r < c.members.size(); ++r)
    if (!c.failed[r] && static_cast<int>(r) != c.me)
      out->push_back(Out{c.members[r], Msg{MsgType::DECIDE, id, k, flag, failed}});
  NX_INFO(P2P, "agreement %u on communicator %u decided: flag %d, %zu failed", k, id, flag, failed.size());
}

void Service::send_all(std::vector<Out>& out) {
  for (Out& o : out) {
    std::vector<uint8_t> bytes = encode(o.msg);
    engine_->send_control(o.world_rank, bytes.data(), bytes.size());
    if (shm::ShmHub* hub = hub_.load(std::memory_order_acquire)) hub->wake_background(o.world_rank);
  }
}

}  // namespace nexar::comm::ft
