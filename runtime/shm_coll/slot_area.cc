// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "shm_coll/slot_area.h"

#include <algorithm>

#include "core/cores.h"
#include "core/params.h"
#include "transport/shm/shm_hub.h"

namespace nexar::comm {

namespace {

std::unique_ptr<SlotArea> build(shm::ShmHub* hub, const std::vector<int>& members) {
  auto a = std::make_unique<SlotArea>();
  a->hub = hub;
  a->area = 0;
  a->inline_bytes = hub->coll_inline();
  a->cma = hub->cma_to_all();
  // Members that share a CPU anyway are found by the spin itself (CommSlots::wait yields
  // to them).
  a->spin_first = static_cast<int>(members.size()) <= usable_cores();
  for (int m : members) {
    a->slots.push_back(hub->coll_slot(m, a->area));
    a->bells.push_back(hub->user_bell_of(m));
    a->pids.push_back(hub->pid_of(m));
    a->world.push_back(m);
  }
  return a;
}

}  // namespace

std::unique_ptr<SlotArea> make_slot_area(shm::ShmHub* hub, uint32_t ctx_base, const std::vector<int>& members) {
  // Only the world communicator (context base 0) owns an area: sub-communicators would
  // need every member to agree on a free area, which they do not negotiate yet.
  if (!hub || ctx_base != 0 || members.size() < 2 || !param::NEXAR_SHM_COLL.get()) return nullptr;
  const std::vector<int>& local = hub->local_ranks();
  if (local.size() != members.size()) return nullptr;
  for (int m : members)
    if (!std::binary_search(local.begin(), local.end(), m)) return nullptr;
  return build(hub, members);
}

std::unique_ptr<SlotArea> inherit_slot_area(const SlotArea& parent, const std::vector<int>& members,
                                            uint64_t last_seq) {
  if (members.size() < 2) return nullptr;
  auto a = build(parent.hub, members);
  a->seq = last_seq;
  return a;
}

}  // namespace nexar::comm
