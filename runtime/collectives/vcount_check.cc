// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/vcount_check.h"

#include <cstdint>
#include <vector>

namespace nexar::coll {
namespace {

constexpr int kTagCounts = 201;

bool in_place(const CollArgs& a) { return a.sendbuf != nullptr && a.sendbuf == a.recvbuf; }

// What rank r itself contributes to an allgatherv or a gatherv: an in-place call's block
// is already in recvbuf, recvcounts[r] long.
size_t own_count(const CollArgs& a, int r) {
  const bool has_recv = a.kind == CollKind::ALLGATHERV || r == a.root;
  return has_recv && in_place(a) && a.recvcounts ? a.recvcounts[r] : a.count;
}

// Ranks that exchange data with rank r: everyone, or the root and its members.
bool exchanges_with(const CollArgs& a, int r, int j) {
  if (j == r) return false;
  if (a.kind == CollKind::GATHERV || a.kind == CollKind::SCATTERV) return r == a.root || j == a.root;
  return true;
}

struct Wire {
  uint64_t send, recv;  // elements: sent to the receiver of this message, expected from it
};

Status mismatch(const char* kind, int from, uint64_t sends, int to, uint64_t expects) {
  return Status(NEXAR_ERR_MISMATCH, strprintf("%s: rank %d sends %llu elements to rank %d where rank %d expects %llu from "
                                              "rank %d", kind, from, static_cast<unsigned long long>(sends), to, to,
                                              static_cast<unsigned long long>(expects), from));
}

}  // namespace

Status check_pair_counts(const CollArgs& a, int j, uint64_t j_sends, uint64_t r_expects, int r, uint64_t r_sends,
                         uint64_t j_expects) {
  const char* kind = coll_kind_name(a.kind);
  if (j_sends != r_expects) return mismatch(kind, j, j_sends, r, r_expects);
  if (r_sends != j_expects) return mismatch(kind, r, r_sends, j, j_expects);
  return Status::Ok();
}

size_t vcount_send_to(const CollArgs& a, int r, int j) {
  switch (a.kind) {
    case CollKind::ALLTOALLV: return a.sendcounts[j];
    case CollKind::ALLGATHERV: return own_count(a, r);
    case CollKind::REDUCE_SCATTER_V: return a.recvcounts[j];
    case CollKind::GATHERV: return r != a.root && j == a.root ? own_count(a, r) : 0;
    case CollKind::SCATTERV: return r == a.root ? a.sendcounts[j] : 0;
    default: return 0;
  }
}

size_t vcount_recv_from(const CollArgs& a, int r, int j) {
  switch (a.kind) {
    case CollKind::ALLTOALLV: case CollKind::ALLGATHERV: return a.recvcounts[j];
    case CollKind::REDUCE_SCATTER_V: return a.recvcounts[r];
    case CollKind::GATHERV: return r == a.root ? a.recvcounts[j] : 0;
    case CollKind::SCATTERV: return r != a.root && j == a.root ? a.count : 0;
    default: return 0;
  }
}

double vcount_check_cost(const CostModel& m, int p) { return m.xfer(1 + (p - 2) / 4.0, 2.0 * sizeof(Wire) * (p - 1)); }

Status check_vector_counts(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  std::vector<Wire> out(static_cast<size_t>(p)), in(static_cast<size_t>(p));
  std::vector<Pending> sends(static_cast<size_t>(p)), recvs(static_cast<size_t>(p));
  for (int j = 0; j < p; ++j) {
    if (!exchanges_with(a, r, j)) continue;
    const size_t uj = static_cast<size_t>(j);
    out[uj] = Wire{vcount_send_to(a, r, j), vcount_recv_from(a, r, j)};
    NX_RETURN_IF_ERROR(ctx.irecv(j, kTagCounts, &in[uj], sizeof(Wire), &recvs[uj]));
  }
  for (int k = 1; k < p; ++k) {  // in ring order from r, so no peer gets every first message
    const int j = (r + k) % p;
    if (exchanges_with(a, r, j))
      NX_RETURN_IF_ERROR(ctx.isend(j, kTagCounts, &out[static_cast<size_t>(j)], sizeof(Wire), &sends[static_cast<size_t>(j)]));
  }
  // A pair is judged once both of its messages are through (so the peer has this rank's
  // counts too and reports the same pair), in rank order; the first disagreement is the
  // result. Every message is still waited for after one: the receives write into this
  // frame (every peer posted all of its sends before waiting, so none is missing).
  // The other rank of a disagreeing pair may finish first and abort the communicator while
  // this rank still waits on a third one: an abort ends every wait at once, and the pairs
  // already through are still judged, so this rank reports the mismatch, not the abort.
  Status first = Status::Ok(), aborted = Status::Ok();
  for (int j = 0; j < p; ++j) {
    if (!exchanges_with(a, r, j)) continue;
    const size_t uj = static_cast<size_t>(j);
    Status st = ctx.wait(&recvs[uj]);
    if (st.ok()) st = ctx.wait(&sends[uj]);
    if (st.code() == NEXAR_ERR_ABORTED) {
      if (aborted.ok()) aborted = st;
      continue;
    }
    NX_RETURN_IF_ERROR(st);
    if (first.ok()) first = check_pair_counts(a, j, in[uj].send, out[uj].recv, r, out[uj].send, in[uj].recv);
  }
  return first.ok() ? aborted : first;
}

}  // namespace nexar::coll
