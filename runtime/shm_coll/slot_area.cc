// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "shm_coll/slot_area.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/cores.h"
#include "core/params.h"
#include "transport/shm/shm_hub.h"

namespace nexar::comm {

std::array<uint64_t, shm::kCollAreas> SlotAreaPool::offer() {
  std::lock_guard<std::mutex> lk(mu_);
  drop_read_locked();
  std::array<uint64_t, shm::kCollAreas> out;
  for (uint32_t a = 0; a < shm::kCollAreas; ++a) {
    if (!free_locked(a)) {
      out[a] = kTaken;
      continue;
    }
    e_[a].taken = true;  // held until settle()
    e_[a].leavers.clear();
    out[a] = e_[a].last;
  }
  return out;
}

void SlotAreaPool::settle(const std::array<uint64_t, shm::kCollAreas>& offered, int chosen) {
  std::lock_guard<std::mutex> lk(mu_);
  for (uint32_t a = 0; a < shm::kCollAreas; ++a)
    if (offered[a] != kTaken && static_cast<int>(a) != chosen) e_[a].taken = false;
}

void SlotAreaPool::take(uint32_t a) {
  std::lock_guard<std::mutex> lk(mu_);
  e_[a].taken = true;
  e_[a].leavers.clear();
}

void SlotAreaPool::give_back(uint32_t a, uint64_t last, std::vector<shm::CollSlot*> members, uint64_t leave_mark) {
  std::lock_guard<std::mutex> lk(mu_);
  Entry& e = e_[a];
  e.taken = false;
  e.last = std::max(e.last, last);
  e.leavers = std::move(members);
  e.leave_mark = leave_mark;
}

bool SlotAreaPool::free_locked(uint32_t a) const {
  const Entry& e = e_[a];
  if (e.taken) return false;
  return std::all_of(e.leavers.begin(), e.leavers.end(), [&](const shm::CollSlot* s) {
    return s->left.load(std::memory_order_acquire) >= e.leave_mark;
  });
}

namespace {
// Whether every reader that is still alive published read_done >= mark.
bool readers_done(const std::vector<shm::CollSlot*>& readers, const std::vector<int>& world, const shm::ShmHub* hub,
                  uint64_t mark) {
  for (size_t m = 0; m < readers.size(); ++m)
    if (readers[m]->read_done.load(std::memory_order_acquire) < mark && hub->alive(world[m])) return false;
  return true;
}
}  // namespace

void SlotAreaPool::retire(std::vector<std::unique_ptr<shm::StageSegment>> segments,
                          std::vector<shm::CollSlot*> readers, std::vector<int> world, const shm::ShmHub* hub,
                          uint64_t mark) {
  std::lock_guard<std::mutex> lk(mu_);
  retired_.push_back(Retired{std::move(segments), std::move(readers), std::move(world), hub, mark});
  drop_read_locked();
}

SlotAreaPool::~SlotAreaPool() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(param::NEXAR_TIMEOUT.get());
  std::lock_guard<std::mutex> lk(mu_);
  for (drop_read_locked(); !retired_.empty() && std::chrono::steady_clock::now() < until; drop_read_locked())
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

void SlotAreaPool::drop_read_locked() {
  std::erase_if(retired_, [](const Retired& r) { return readers_done(r.readers, r.world, r.hub, r.mark); });
}

SlotArea::~SlotArea() {
  if (last_push && pool) {
    std::vector<shm::CollSlot*> readers;
    std::vector<int> ranks;
    for (size_t m = 0; m < slots.size(); ++m)
      if (m != static_cast<size_t>(me)) readers.push_back(slots[m]), ranks.push_back(world[m]);
    if (!readers_done(readers, ranks, hub, last_push)) {
      std::vector<std::unique_ptr<shm::StageSegment>> segments;
      for (auto& s : pushed) segments.push_back(std::move(s));
      pool->retire(std::move(segments), std::move(readers), std::move(ranks), hub, last_push);
    }
  }
  if (!pool) return;
  // Every sequence this rank used in the area is <= seq; a later communicator starts past
  // the largest last of its members. The others see our leaving in `left`.
  slots[static_cast<size_t>(me)]->left.store(seq + 1, std::memory_order_release);
  pool->give_back(area, seq + 1, slots, start + 1);
}

bool slot_area_eligible(const shm::ShmHub* hub, const std::vector<int>& members) {
  if (!hub || members.size() < 2 || !param::NEXAR_SHM_COLL.get()) return false;
  const std::vector<int>& local = hub->local_ranks();
  return std::all_of(members.begin(), members.end(),
                     [&](int m) { return std::binary_search(local.begin(), local.end(), m); });
}

namespace {

std::unique_ptr<SlotArea> build(shm::ShmHub* hub, uint32_t area, const std::vector<int>& members, int me) {
  auto a = std::make_unique<SlotArea>();
  a->hub = hub;
  a->area = area;
  a->me = me;
  a->inline_bytes = hub->coll_inline();
  a->cma = hub->cma_to_all();
  // Members that share a CPU anyway are found by the spin itself (CommSlots::wait yields
  // to them).
  a->spin_first = static_cast<int>(members.size()) <= usable_cores();
  for (int m : members) {
    a->slots.push_back(hub->coll_slot(m, area));
    a->bells.push_back(hub->user_bell_of(m));
    a->pids.push_back(hub->pid_of(m));
    a->world.push_back(m);
  }
  return a;
}

}  // namespace

std::unique_ptr<SlotArea> make_slot_area(shm::ShmHub* hub, SlotAreaPool* pool, uint32_t area,
                                         const std::vector<int>& members, int me, uint64_t start) {
  auto a = build(hub, area, members, me);
  a->pool = pool;
  a->start = start;
  a->seq = start;
  return a;
}

std::unique_ptr<SlotArea> inherit_slot_area(SlotArea& parent, const std::vector<int>& members, int me,
                                            uint64_t last_seq) {
  if (members.size() < 2) return nullptr;
  auto a = make_slot_area(parent.hub, parent.pool, parent.area, members, me, last_seq);
  a->pushed = std::move(parent.pushed);
  a->last_push = parent.last_push;
  parent.pool = nullptr;
  return a;
}

}  // namespace nexar::comm
