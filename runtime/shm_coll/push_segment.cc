// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "shm_coll/push_segment.h"

#include "core/fault.h"
#include "shm_coll/direct_round.h"

namespace nexar::coll {
namespace {
shm::StageRef* pushed_ref(ShmSlots& s, int r, uint64_t seq) {
  return reinterpret_cast<shm::StageRef*>(s.buf(r, seq)->data());
}
}  // namespace

bool may_push(const ShmSlots& s) { return s.inline_bytes() >= sizeof(shm::StageRef); }

unsigned char* push_area(ShmSlots& s, int rank, uint64_t seq, size_t bytes) {
  if (!may_push(s)) return nullptr;
  *pushed_ref(s, rank, seq) = shm::StageRef{};
  shm::StageSegment* seg = nullptr;
  if (bytes == 0 || fault::fail_point("shm_push") || !s.own_segment(seq, bytes, &seg).ok()) return nullptr;
  *pushed_ref(s, rank, seq) = seg->ref();
  return seg->data();
}

Status arrive_pushing(ShmSlots& s, int rank, uint64_t seq, const void* send, const void* recv, uint64_t count) {
  const Status arrived = arrive_direct(s, rank, seq, send, recv, count);
  return arrived.ok() ? arrived : end_direct(s, seq, arrived, kReadByNobody);
}

Status pushed_data(ShmSlots& s, int j, uint64_t seq, size_t need, const unsigned char** out, size_t* have) {
  *out = nullptr;
  const shm::StageRef ref = may_push(s) ? *pushed_ref(s, j, seq) : shm::StageRef{};
  if (ref.bytes == 0) return Status::Ok();
  shm::StageSegment* seg = nullptr;
  NX_RETURN_IF_ERROR(s.member_segment(j, seq, ref, &seg));
  if (seg->bytes() < need)
    return Status(NEXAR_ERR_PROTOCOL, strprintf("comm rank %d pushed a segment of %zu bytes where %zu were due", j,
                                                seg->bytes(), need));
  *out = seg->data();
  if (have) *have = seg->bytes();
  return Status::Ok();
}

}  // namespace nexar::coll
