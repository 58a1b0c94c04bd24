// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/comm_split.h"

#include <algorithm>
#include <array>

#include "comm/comm_coll_context.h"
#include "core/log.h"

namespace nexar::comm {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

uint32_t child_context(uint32_t parent_base, uint32_t child_number, int color, uint32_t salt) {
  uint64_t h = mix(mix(mix(parent_base) ^ child_number) ^ static_cast<uint32_t>(color)) ^ mix(salt);
  uint32_t base = block_base(static_cast<uint32_t>(h));
  return base == 0 || base == block_base(p2p::kControlContext) ? kContextsPerComm : base;
}

namespace {

Status collective(Comm& c, coll::CollKind kind, const void* send, void* recv, size_t count, nexar_dtype_t dtype,
                  nexar_op_t op = NEXAR_SUM) {
  coll::CollArgs a;
  a.kind = kind;
  a.sendbuf = send;
  a.recvbuf = recv;
  a.count = count;
  a.dtype = dtype;
  a.op = op;
  return run_collective(c, a);
}

// Picks context ids for this rank's child that no member process already uses: every rank
// tries its candidate, and all retry with a new salt if any rank of the parent collided.
Status agree_on_context(Comm& parent, uint32_t child_number, int color, uint32_t* base) {
  for (uint32_t salt = 0; salt < 16; ++salt) {
    const bool mine = color != NEXAR_UNDEFINED;
    uint32_t candidate = mine ? child_context(parent.p2p_context(), child_number, color, salt) : 0;
    uint8_t collided = mine && !parent.world()->contexts.reserve(candidate) ? 1 : 0;
    uint8_t any = 0;
    Status st = collective(parent, coll::CollKind::ALLREDUCE, &collided, &any, 1, NEXAR_UINT8, NEXAR_MAX);
    if (!st.ok() || any) {
      if (mine && !collided) parent.world()->contexts.release(candidate);
      NX_RETURN_IF_ERROR(st);
      NX_INFO(INIT, "context id collision for a new communicator; trying again (salt %u)", salt + 1);
      continue;
    }
    *base = candidate;
    return Status::Ok();
  }
  return Status(NEXAR_ERR_INTERNAL, "no free context id for a new communicator after 16 tries");
}

// Every parent rank offers the slot areas free here (SlotAreaPool::offer) in the split's
// allgather; a child whose members all share this host takes the lowest area every member
// offered, its sequences past every member's last there. All members compute the same
// choice from the same rows; with none free the child does without slots (its collectives
// use messages). The offer ends (the other areas free again) when this goes.
class AreaOffer {
 public:
  explicit AreaOffer(SlotAreaPool& pool) : pool_(pool), offered_(pool.offer()) {}
  ~AreaOffer() { pool_.settle(offered_, chosen_); }
  AreaOffer(const AreaOffer&) = delete;
  AreaOffer& operator=(const AreaOffer&) = delete;
  uint64_t operator[](uint32_t a) const { return offered_[a]; }

  // rows: the allgathered offers, kCollAreas per parent rank; ranks: the child's members.
  void attach(Comm& child, const uint64_t* rows, size_t stride, const std::vector<int>& ranks) {
    const std::shared_ptr<WorldInfo>& w = child.world();
    if (!child.single_host() || !slot_area_eligible(w->shm, child.members())) return;
    for (uint32_t a = 0; a < shm::kCollAreas; ++a) {
      uint64_t start = 0;
      bool free_everywhere = true;
      for (int r : ranks) {
        const uint64_t v = rows[static_cast<size_t>(r) * stride + a];
        free_everywhere = free_everywhere && v != SlotAreaPool::kTaken;
        start = std::max(start, v);
      }
      if (!free_everywhere) continue;
      chosen_ = static_cast<int>(a);
      child.set_slot_area(make_slot_area(w->shm, &w->slot_areas, a, child.members(), child.rank(), start));
      return;
    }
    NX_INFO(INIT, "no shared-memory slot area is free on every member: the new communicator's collectives use messages");
  }

 private:
  SlotAreaPool& pool_;
  const std::array<uint64_t, shm::kCollAreas> offered_;
  int chosen_ = -1;
};

}  // namespace

Status split(Comm& parent, int color, int key, std::shared_ptr<Comm>* out) {
  out->reset();
  const int n = parent.size();
  // Per parent rank: color, key (as int64), then its slot area offer.
  constexpr size_t kRow = 2 + shm::kCollAreas;
  AreaOffer offer(parent.world()->slot_areas);
  std::vector<uint64_t> all(kRow * static_cast<size_t>(n));
  uint64_t mine[kRow] = {static_cast<uint64_t>(int64_t{color}), static_cast<uint64_t>(int64_t{key})};
  for (uint32_t a = 0; a < shm::kCollAreas; ++a) mine[2 + a] = offer[a];
  NX_RETURN_IF_ERROR(collective(parent, coll::CollKind::ALLGATHER, mine, all.data(), kRow, NEXAR_UINT64));
  const auto color_of = [&](int r) { return static_cast<int64_t>(all[kRow * static_cast<size_t>(r)]); };
  const auto key_of = [&](int r) { return static_cast<int64_t>(all[kRow * static_cast<size_t>(r) + 1]); };
  const uint32_t child_number = parent.next_child_number();
  uint32_t base = 0;
  NX_RETURN_IF_ERROR(agree_on_context(parent, child_number, color, &base));
  if (color == NEXAR_UNDEFINED) return Status::Ok();

  std::vector<int> ranks;  // parent ranks with my color, ordered by (key, parent rank)
  for (int r = 0; r < n; ++r)
    if (color_of(r) == color) ranks.push_back(r);
  std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) { return key_of(a) < key_of(b); });
  std::vector<int> members;
  int my_rank = -1;
  for (int r : ranks) {
    if (r == parent.rank()) my_rank = static_cast<int>(members.size());
    members.push_back(parent.world_rank_of(r));
  }
  auto child = std::make_shared<Comm>(parent.world(), base, std::move(members), my_rank, parent.timeout());
  offer.attach(*child, all.data() + 2, kRow, ranks);
  *out = std::move(child);
  NX_INFO(INIT, "split: color %d key %d -> rank %d of %d (context %u)", color, key, my_rank, (*out)->size(), base);
  return Status::Ok();
}

Status dup(Comm& parent, std::shared_ptr<Comm>* out) { return split(parent, 0, parent.rank(), out); }

}  // namespace nexar::comm
