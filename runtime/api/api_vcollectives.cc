// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The collectives with a count per rank of the C API: the same path as the others
// (api_collectives.cc: local checks, the collective queue, blocking or a request); a
// queued one reads copies of its count arrays, so the caller may free them on return.
#include <vector>

#include "api/api_state.h"

using nexar::coll::CollArgs;
using nexar::coll::CollKind;

namespace nexar::api {

std::shared_ptr<const void> own_count_arrays(CollArgs* a, int rank, int size) {
  struct Copies {
    std::vector<size_t> sendcounts, sdispls, recvcounts, rdispls;
  };
  auto c = std::make_shared<Copies>();
  const size_t n = static_cast<size_t>(size);
  const bool root = rank == a->root;
  // Only the arrays this rank reads: the others may be NULL or dangling.
  const bool sends = a->kind == CollKind::ALLTOALLV || (a->kind == CollKind::SCATTERV && root);
  const bool recvs = a->kind == CollKind::ALLTOALLV || a->kind == CollKind::ALLGATHERV ||
                     a->kind == CollKind::REDUCE_SCATTER_V || (a->kind == CollKind::GATHERV && root);
  const bool rdispls = recvs && a->kind != CollKind::REDUCE_SCATTER_V;
  auto copy = [n](const size_t* from, std::vector<size_t>* to) {
    to->assign(from, from + n);
    return to->data();
  };
  if (sends) {
    a->sendcounts = copy(a->sendcounts, &c->sendcounts);
    a->sdispls = copy(a->sdispls, &c->sdispls);
  }
  if (recvs) a->recvcounts = copy(a->recvcounts, &c->recvcounts);
  if (rdispls) a->rdispls = copy(a->rdispls, &c->rdispls);
  return c;
}

}  // namespace nexar::api

namespace {

using nexar::api::start_collective;

CollArgs vargs(CollKind kind, const void* sendbuf, void* recvbuf, size_t count, nexar_dtype_t dtype, int root = 0) {
  return nexar::api::coll_args(kind, sendbuf, recvbuf, count, dtype, NEXAR_SUM, root);
}

CollArgs allgatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts, const size_t* displs,
                    nexar_dtype_t dtype) {
  CollArgs a = vargs(CollKind::ALLGATHERV, sendbuf, recvbuf, sendcount, dtype);
  a.recvcounts = recvcounts;
  a.rdispls = displs;
  return a;
}

CollArgs gatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts, const size_t* displs,
                 nexar_dtype_t dtype, int root) {
  CollArgs a = vargs(CollKind::GATHERV, sendbuf, recvbuf, sendcount, dtype, root);
  a.recvcounts = recvcounts;
  a.rdispls = displs;
  return a;
}

CollArgs scatterv(const void* sendbuf, const size_t* sendcounts, const size_t* displs, void* recvbuf, size_t recvcount,
                  nexar_dtype_t dtype, int root) {
  CollArgs a = vargs(CollKind::SCATTERV, sendbuf, recvbuf, recvcount, dtype, root);
  a.sendcounts = sendcounts;
  a.sdispls = displs;
  return a;
}

CollArgs alltoallv(const void* sendbuf, const size_t* sendcounts, const size_t* sdispls, void* recvbuf,
                   const size_t* recvcounts, const size_t* rdispls, nexar_dtype_t dtype) {
  CollArgs a = vargs(CollKind::ALLTOALLV, sendbuf, recvbuf, 0, dtype);
  a.sendcounts = sendcounts;
  a.sdispls = sdispls;
  a.recvcounts = recvcounts;
  a.rdispls = rdispls;
  return a;
}

CollArgs reduce_scatter_v(const void* sendbuf, void* recvbuf, const size_t* recvcounts, nexar_dtype_t dtype,
                          nexar_op_t op) {
  CollArgs a = nexar::api::coll_args(CollKind::REDUCE_SCATTER_V, sendbuf, recvbuf, 0, dtype, op, 0);
  a.recvcounts = recvcounts;
  return a;
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_allgatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                          const size_t* displs, nexar_dtype_t dtype, nexar_comm_t comm) {
  return start_collective(comm, allgatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dtype), nullptr, false);
}
NEXAR_API nexar_result_t nexar_iallgatherv(const void* sendbuf, size_t sendcount, void* recvbuf,
                                           const size_t* recvcounts, const size_t* displs, nexar_dtype_t dtype,
                                           nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, allgatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dtype), req, true);
}
NEXAR_API nexar_result_t nexar_gatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                       const size_t* displs, nexar_dtype_t dtype, int root, nexar_comm_t comm) {
  return start_collective(comm, gatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dtype, root), nullptr, false);
}
NEXAR_API nexar_result_t nexar_igatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                        const size_t* displs, nexar_dtype_t dtype, int root, nexar_comm_t comm,
                                        nexar_request_t* req) {
  return start_collective(comm, gatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dtype, root), req, true);
}
NEXAR_API nexar_result_t nexar_scatterv(const void* sendbuf, const size_t* sendcounts, const size_t* displs,
                                        void* recvbuf, size_t recvcount, nexar_dtype_t dtype, int root,
                                        nexar_comm_t comm) {
  return start_collective(comm, scatterv(sendbuf, sendcounts, displs, recvbuf, recvcount, dtype, root), nullptr, false);
}
NEXAR_API nexar_result_t nexar_iscatterv(const void* sendbuf, const size_t* sendcounts, const size_t* displs,
                                         void* recvbuf, size_t recvcount, nexar_dtype_t dtype, int root,
                                         nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, scatterv(sendbuf, sendcounts, displs, recvbuf, recvcount, dtype, root), req, true);
}
NEXAR_API nexar_result_t nexar_alltoallv(const void* sendbuf, const size_t* sendcounts, const size_t* sdispls,
                                         void* recvbuf, const size_t* recvcounts, const size_t* rdispls,
                                         nexar_dtype_t dtype, nexar_comm_t comm) {
  return start_collective(comm, alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype), nullptr,
                          false);
}
NEXAR_API nexar_result_t nexar_ialltoallv(const void* sendbuf, const size_t* sendcounts, const size_t* sdispls,
                                          void* recvbuf, const size_t* recvcounts, const size_t* rdispls,
                                          nexar_dtype_t dtype, nexar_comm_t comm, nexar_request_t* req) {
  return start_collective(comm, alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype), req,
                          true);
}
NEXAR_API nexar_result_t nexar_reduce_scatter_v(const void* sendbuf, void* recvbuf, const size_t* recvcounts,
                                                nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm) {
  return start_collective(comm, reduce_scatter_v(sendbuf, recvbuf, recvcounts, dtype, op), nullptr, false);
}
NEXAR_API nexar_result_t nexar_ireduce_scatter_v(const void* sendbuf, void* recvbuf, const size_t* recvcounts,
                                                 nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm,
                                                 nexar_request_t* req) {
  return start_collective(comm, reduce_scatter_v(sendbuf, recvbuf, recvcounts, dtype, op), req, true);
}

}  // extern "C"
