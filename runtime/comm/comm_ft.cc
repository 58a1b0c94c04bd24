// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/comm_ft.h"

#include <algorithm>

#include "comm/comm_coll_context.h"
#include "comm/comm_split.h"
#include "core/log.h"

namespace nexar::comm {
namespace {
// Child numbers of shrinks (split and dup count from 0 in the low half).
constexpr uint32_t kShrinkNumbers = 0x80000000u;
constexpr int kShrinkColor = -3;
constexpr uint32_t kSalts = 16;
}  // namespace

Status decision_status(const ft::Decision& d) {
  if (d.failed.empty()) return Status::Ok();
  std::string who;
  for (int r : d.failed) who += strprintf("%s%d", who.empty() ? "" : ", ", r);
  return Status(NEXAR_ERR_PEER_LOST, strprintf("rank(s) %s of the communicator failed", who.c_str()));
}

Status agree(Comm& c, int32_t flag, ft::Decision* d) {
  NX_RETURN_IF_ERROR(c.world()->ft->agree(c.p2p_context(), flag, c.deadline(), d));
  return decision_status(*d);
}

namespace {

// The shrunk communicator of a world on one host takes over the world's shared-memory
// slots, with sequences past every survivor's last (agreed by an allreduce over point to
// point, before the area is attached). A failure here breaks the child like any
// collective's would; the caller's next call sees it.
void hand_over_slots(SlotArea& parent, Comm& child) {
  uint64_t last = parent.seq, max_last = 0;
  coll::CollArgs a;
  a.kind = coll::CollKind::ALLREDUCE;
  a.sendbuf = &last;
  a.recvbuf = &max_last;
  a.count = 1;
  a.dtype = NEXAR_UINT64;
  a.op = NEXAR_MAX;
  if (!run_collective(child, a).ok()) return;
  child.set_slot_area(inherit_slot_area(parent, child.members(), child.rank(), max_last + 2));
}

}  // namespace

Status shrink(Comm& c, std::shared_ptr<Comm>* out) {
  out->reset();
  // The parent never runs another collective, on every member alike: its slot area can go
  // to the child.
  if (c.slot_area()) c.revoke();
  const uint32_t number = kShrinkNumbers | c.next_shrink_number();
  for (uint32_t salt = 0; salt < kSalts; ++salt) {
    const uint32_t candidate = child_context(c.p2p_context(), number, kShrinkColor, salt);
    const bool reserved = c.world()->contexts.reserve(candidate);
    ft::Decision d;
    Status st = c.world()->ft->agree(c.p2p_context(), reserved ? 1 : 0, c.deadline(), &d);
    if (!st.ok() || d.flag == 0) {
      if (reserved) c.world()->contexts.release(candidate);
      NX_RETURN_IF_ERROR(st.with_context("nexar_comm_shrink"));
      NX_INFO(INIT, "context id collision for a shrunk communicator; trying again (salt %u)", salt + 1);
      continue;
    }
    std::vector<int> members;
    int my_rank = -1;
    for (int r = 0; r < c.size(); ++r) {
      if (std::binary_search(d.failed.begin(), d.failed.end(), r)) continue;
      if (r == c.rank()) my_rank = static_cast<int>(members.size());
      members.push_back(c.world_rank_of(r));
    }
    *out = std::make_shared<Comm>(c.world(), candidate, std::move(members), my_rank, c.timeout());
    if (c.slot_area() && (*out)->single_host()) hand_over_slots(*c.slot_area(), **out);
    NX_INFO(INIT, "shrink: %zu failed, rank %d -> rank %d of %d (context %u)", d.failed.size(), c.rank(), my_rank,
            (*out)->size(), candidate);
    return Status::Ok();
  }
  return Status(NEXAR_ERR_INTERNAL, "no free context id for a shrunk communicator after 16 tries");
}

std::vector<int> failed_ranks(const Comm& c) { return c.world()->ft->failed(c.p2p_context()); }

}  // namespace nexar::comm
