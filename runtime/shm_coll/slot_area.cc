// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "shm_coll/slot_area.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

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
  cpu_set_t cpus;
  int ncpu = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  // A rank bound to one core (mpirun --bind-to core, taskset per rank) says nothing about
  // where the others run: count the host's cores. Members that share a CPU anyway are
  // found by the spin itself (CommSlots::wait yields to them).
  if (ncpu == 1) ncpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  a->spin_first = static_cast<int>(members.size()) <= ncpu;
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
  if (!hub || ctx_base != 0 || members.size() < 2 || !params::get_bool("NEXAR_SHM_COLL")) return nullptr;
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
