// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// validate_vector_args: the local checks of the collectives with a count per rank. Counts
// that disagree between ranks are not local: vcount_check.h finds those.
#include <cstdint>
#include <string>

#include "collectives/collective.h"
#include "core/dtype.h"

namespace nexar::coll {
namespace {

// One side of a call: a buffer with a count and displacement per rank (displs NULL: a
// single block of counts[0] elements at the start, as for sendcount / recvcount).
struct Side {
  const char* buf_name;
  const void* buf;
  const char* counts_name;
  const size_t* counts;
  const char* displs_name;
  const size_t* displs;
  int n;  // entries (0: this rank does not use this side)
};

Status check_side(const CollArgs& a, const Side& s) {
  if (s.n == 0) return Status::Ok();
  const size_t es = dtype_size(a.dtype);
  if (s.counts == nullptr) return invalid(a, strprintf("%s is NULL", s.counts_name));
  if (s.displs_name && s.displs == nullptr) return invalid(a, strprintf("%s is NULL", s.displs_name));
  for (int i = 0; i < s.n; ++i) {
    const size_t c = s.counts[i], d = s.displs ? s.displs[i] : 0;
    if (c == 0) continue;
    if (s.buf == nullptr)
      return invalid(a, strprintf("%s is NULL with %s[%d] = %zu", s.buf_name, s.counts_name, i, c));
    if (c > kMaxBufferBytes / es || d > kMaxBufferBytes / es - c)  // collective.h: no buffer is larger
      return invalid(a, strprintf("%s[%d] = %zu + %s[%d] = %zu elements of %zu bytes exceed the largest possible "
                                  "buffer (2^%d bytes)",
                                  s.counts_name, i, c, s.displs_name ? s.displs_name : "offset", i, d, es,
                                  kMaxBufferBits));
  }
  return Status::Ok();
}

// The block a rank sends itself must fit the receive it posts for itself exactly (a local
// error: no peer is involved).
Status check_own_block(const CollArgs& a, int r) {
  const bool in_place = a.sendbuf != nullptr && a.sendbuf == a.recvbuf;
  size_t sent = 0, room = 0;
  std::string what;
  switch (a.kind) {
    case CollKind::ALLTOALLV: sent = a.sendcounts[r]; room = a.recvcounts[r]; what = strprintf("sendcounts[%d] != recvcounts[%d]", r, r); break;
    case CollKind::ALLGATHERV: case CollKind::GATHERV:
      if (in_place || (a.kind == CollKind::GATHERV && r != a.root)) return Status::Ok();
      sent = a.count; room = a.recvcounts[r]; what = strprintf("sendcount != recvcounts[%d]", r); break;
    case CollKind::SCATTERV:
      if (r != a.root || in_place) return Status::Ok();
      sent = a.sendcounts[r]; room = a.count; what = strprintf("sendcounts[%d] != recvcount", r); break;
    default: return Status::Ok();
  }
  if (sent == room) return Status::Ok();
  return invalid(a, strprintf("rank %d sends itself %zu elements where its receive holds %zu (%s)", r, sent, room,
                              what.c_str()));
}

}  // namespace

Status validate_vector_args(const CollArgs& a, int rank, int size) {
  const bool root = rank == a.root;
  const size_t* one = &a.count;  // a single sendcount / recvcount
  Side send{"sendbuf", a.sendbuf, "sendcounts", a.sendcounts, "sdispls", a.sdispls, 0};
  Side recv{"recvbuf", a.recvbuf, "recvcounts", a.recvcounts, "rdispls", a.rdispls, 0};
  const Side send_one{"sendbuf", a.sendbuf, "sendcount", one, nullptr, nullptr, 1};
  const Side recv_one{"recvbuf", a.recvbuf, "recvcount", one, nullptr, nullptr, 1};
  switch (a.kind) {
    case CollKind::ALLGATHERV: send = send_one; recv.n = size; break;
    case CollKind::GATHERV: send = send_one; recv.n = root ? size : 0; break;
    case CollKind::SCATTERV: send.n = root ? size : 0; recv = recv_one; break;
    case CollKind::ALLTOALLV: send.n = recv.n = size; break;
    case CollKind::REDUCE_SCATTER_V: {
      if (a.recvcounts == nullptr) return invalid(a, "recvcounts is NULL");
      size_t total = 0;
      const size_t es = dtype_size(a.dtype);
      for (int i = 0; i < size; ++i) {
        if (a.recvcounts[i] > kMaxBufferBytes / es - total)
          return invalid(a, strprintf("recvcounts add up past the largest possible buffer at recvcounts[%d] = %zu", i,
                                      a.recvcounts[i]));
        total += a.recvcounts[i];
      }
      if (total > 0 && a.sendbuf == nullptr) return invalid(a, strprintf("sendbuf is NULL with %zu elements", total));
      const size_t mine = a.recvcounts[rank];
      if (mine > 0 && a.recvbuf == nullptr) return invalid(a, strprintf("recvbuf is NULL with recvcounts[%d] = %zu", rank, mine));
      return Status::Ok();
    }
    default: return invalid(a, "not a collective with a count per rank");
  }
  NX_RETURN_IF_ERROR(check_side(a, send));
  NX_RETURN_IF_ERROR(check_side(a, recv));
  return check_own_block(a, rank);
}

}  // namespace nexar::coll
