// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The one entry point the communicator layer calls for every collective, and the purely
// local argument check the API layer runs before anything is sent.
//
// Counts per kind (elements of dtype):
//   ALLREDUCE, BROADCAST, REDUCE, SCAN, EXSCAN: count = the vector length.
//   ALLGATHER, GATHER: count = elements each rank contributes (recvbuf holds size*count).
//   SCATTER, REDUCE_SCATTER: count = elements each rank receives (sendbuf holds size*count).
//   ALLTOALL: count = elements to and from each rank (both buffers hold size*count).
//   BARRIER: nothing. BROADCAST: the buffer is recvbuf (sendbuf is ignored).
//   ALLREDUCE_BUCKETED: bufs[0..nbufs) with counts[0..nbufs), reduced in place.
// The kinds with a count per rank (is_vector_kind) take their counts from the arrays
// (elements; displacements in elements from the buffer's start) and leave count 0:
//   ALLGATHERV: count = sendcount; recvcounts/rdispls: what arrives from each rank.
//   GATHERV: count = sendcount; recvcounts/rdispls read at the root only.
//   SCATTERV: count = recvcount; sendcounts/sdispls read at the root only.
//   ALLTOALLV: sendcounts/sdispls and recvcounts/rdispls, one entry per rank.
//   REDUCE_SCATTER_V: recvcounts (the same on every rank); sendbuf holds their sum.
//   In place as above: ALLGATHERV and GATHERV (root) with sendbuf == recvbuf or
//   recvbuf + rdispls[rank]; SCATTERV root with recvbuf == sendbuf or sendbuf + sdispls[root];
//   ALLTOALLV with sendbuf == recvbuf (the data to send is read before anything arrives);
//   REDUCE_SCATTER_V with sendbuf == recvbuf (the result goes to its first recvcounts[rank]).
// In place: sendbuf == recvbuf. For ALLGATHER and GATHER (root) the contribution is then
// already in recvbuf at rank*count; sendbuf == recvbuf + rank*count is also accepted. For
// REDUCE_SCATTER in place, recvbuf holds size*count inputs and the result goes to its first
// count elements. For SCATTER, a root's recvbuf == sendbuf (or sendbuf + root*count) leaves
// its block where it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "collectives/coll_context.h"
#include "collectives/coll_kind.h"
#include "core/status.h"
#include "nexar/nexar.h"

namespace nexar::coll {

struct AlgoDesc;  // algo_table.h

struct CollArgs {
  CollKind kind = CollKind::BARRIER;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  size_t count = 0;
  nexar_dtype_t dtype = NEXAR_UINT8;
  nexar_op_t op = NEXAR_SUM;
  int root = 0;
  void* const* bufs = nullptr;  // ALLREDUCE_BUCKETED
  const size_t* counts = nullptr;
  size_t nbufs = 0;
  const size_t* sendcounts = nullptr;  // the kinds with a count per rank
  const size_t* sdispls = nullptr;
  const size_t* recvcounts = nullptr;
  const size_t* rdispls = nullptr;
  // BARRIER only: nexar_comm_destroy's closing barrier, whose descriptor differs from a
  // program's nexar_barrier, so that one rank's destroy never completes another's barrier.
  bool closing = false;
};

// ALLREDUCE_BUCKETED: the elements of all its buffers (counts[0..nbufs) added up).
uint64_t bucket_elements(const CollArgs& args);

// The most bytes one buffer may span: no 64-bit address space holds more (x86-64 with
// 5-level paging and AArch64 give a process at most 2^56 bytes), and every byte offset
// must fit ptrdiff_t. A count beyond it cannot describe real memory: every call refuses
// it before any transport sees it.
constexpr int kMaxBufferBits = sizeof(void*) >= 8 ? 56 : 31;
constexpr size_t kMaxBufferBytes = size_t{1} << kMaxBufferBits;
static_assert(kMaxBufferBytes <= static_cast<size_t>(PTRDIFF_MAX));

// count elements of elem_bytes, `copies` times over (the ranks of an allgather's receive
// buffer; 1 for a plain buffer), fit in kMaxBufferBytes: *bytes (if given) gets
// count * elem_bytes. Else NEXAR_ERR_INVALID_ARGUMENT naming the count.
Status check_count(size_t count, size_t copies, size_t elem_bytes, size_t* bytes);

// Local checks only (dtype, op, root in [0, size), NULL buffers with a non-zero count,
// byte sizes beyond kMaxBufferBytes). NEXAR_ERR_INVALID_ARGUMENT names the argument and
// its value. Arguments a collective ignores (op of a broadcast, root of an allreduce,
// recvbuf of a non-root gather) are not checked.
Status validate_collective_args(const CollArgs& args, int rank, int size);

// The part of validate_collective_args for the kinds with a count per rank: NULL arrays,
// NULL buffers with a non-zero count, a displacement plus its count past size_t.
Status validate_vector_args(const CollArgs& args, int rank, int size);
// NEXAR_ERR_INVALID_ARGUMENT "<kind>: <what>".
Status invalid(const CollArgs& args, const std::string& what);

// Picks the algorithm (NEXAR_ALGO, else the cost model), logs the choice, and runs it on
// ctx (the communicator layer's comm::run_collective numbers and records the call first).
// Arguments must have passed validate_collective_args.
Status select_and_run(CollContext& ctx, const CollArgs& args);

// A communicator of one rank's call of a kind one_rank serves (select.h's one_rank_algo
// gave d): logged as select_and_run logs its choice, then one local copy, with no
// context, selection or agreement (transport: the communicator's, for the log line).
Status run_one_rank(const AlgoDesc& d, const CollArgs& args, CollTransport transport);

}  // namespace nexar::coll
