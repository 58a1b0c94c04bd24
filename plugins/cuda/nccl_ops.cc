// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The NCCL half of the plugin: unique ids, communicators and the collectives the
// hierarchical path uses, each enqueued on a stream. nexar dtypes and ops map one to one.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <string>

#include "device/plugin_abi.h"
#include "nexar/nexar.h"
#include "plugin_error.h"

namespace nexar_cuda {

namespace {

int check_nccl(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return 0;
  std::string detail = ncclGetErrorString(r);
  const char* last = ncclGetLastError(nullptr);
  if (last && *last) detail += std::string(": ") + last;
  return fail(what, detail);
}

bool map_dtype(int d, ncclDataType_t* out) {
  switch (d) {
    case NEXAR_INT8: *out = ncclInt8; return true;
    case NEXAR_UINT8: *out = ncclUint8; return true;
    case NEXAR_INT32: *out = ncclInt32; return true;
    case NEXAR_UINT32: *out = ncclUint32; return true;
    case NEXAR_INT64: *out = ncclInt64; return true;
    case NEXAR_UINT64: *out = ncclUint64; return true;
    case NEXAR_FLOAT16: *out = ncclFloat16; return true;
    case NEXAR_BFLOAT16: *out = ncclBfloat16; return true;
    case NEXAR_FLOAT32: *out = ncclFloat32; return true;
    case NEXAR_FLOAT64: *out = ncclFloat64; return true;
    default: return false;
  }
}

bool map_op(int o, ncclRedOp_t* out) {
  switch (o) {
    case NEXAR_SUM: *out = ncclSum; return true;
    case NEXAR_PROD: *out = ncclProd; return true;
    case NEXAR_MIN: *out = ncclMin; return true;
    case NEXAR_MAX: *out = ncclMax; return true;
    case NEXAR_AVG: *out = ncclAvg; return true;
    default: return false;
  }
}

// Shared preamble: device, dtype (and op when op >= 0).
int prepare(int dtype, int op, ncclDataType_t* t, ncclRedOp_t* r) {
  if (use_device()) return -1;
  if (!map_dtype(dtype, t)) return fail("NCCL", "dtype " + std::to_string(dtype) + " has no NCCL type");
  if (op >= 0 && !map_op(op, r)) return fail("NCCL", "op " + std::to_string(op) + " has no NCCL operation");
  return 0;
}

cudaStream_t S(void* s) { return static_cast<cudaStream_t>(s); }
ncclComm_t C(void* c) { return static_cast<ncclComm_t>(c); }

int get_unique_id(void* id) {
  static_assert(sizeof(ncclUniqueId) == NEXAR_NCCL_ID_BYTES, "NCCL id size changed");
  ncclUniqueId u;
  if (check_nccl(ncclGetUniqueId(&u), "ncclGetUniqueId")) return -1;
  std::memcpy(id, &u, sizeof u);
  return 0;
}

int comm_init(void** comm, int nranks, const void* id, int rank) {
  if (use_device()) return -1;
  ncclUniqueId u;
  std::memcpy(&u, id, sizeof u);
  ncclComm_t c = nullptr;
  if (check_nccl(ncclCommInitRank(&c, nranks, u, rank), "ncclCommInitRank")) return -1;
  *comm = c;
  return 0;
}

int comm_destroy(void* comm) { return check_nccl(ncclCommDestroy(C(comm)), "ncclCommDestroy"); }
int group_start() { return check_nccl(ncclGroupStart(), "ncclGroupStart"); }
int group_end() { return check_nccl(ncclGroupEnd(), "ncclGroupEnd"); }

int allreduce(const void* s, void* r, size_t n, int dtype, int op, void* comm, void* st) {
  ncclDataType_t t;
  ncclRedOp_t o;
  if (prepare(dtype, op, &t, &o)) return -1;
  return check_nccl(ncclAllReduce(s, r, n, t, o, C(comm), S(st)), "ncclAllReduce");
}
int broadcast(const void* s, void* r, size_t n, int dtype, int root, void* comm, void* st) {
  ncclDataType_t t;
  if (prepare(dtype, -1, &t, nullptr)) return -1;
  return check_nccl(ncclBroadcast(s, r, n, t, root, C(comm), S(st)), "ncclBroadcast");
}
int reduce(const void* s, void* r, size_t n, int dtype, int op, int root, void* comm, void* st) {
  ncclDataType_t t;
  ncclRedOp_t o;
  if (prepare(dtype, op, &t, &o)) return -1;
  return check_nccl(ncclReduce(s, r, n, t, o, root, C(comm), S(st)), "ncclReduce");
}
int allgather(const void* s, void* r, size_t n, int dtype, void* comm, void* st) {
  ncclDataType_t t;
  if (prepare(dtype, -1, &t, nullptr)) return -1;
  return check_nccl(ncclAllGather(s, r, n, t, C(comm), S(st)), "ncclAllGather");
}
int reduce_scatter(const void* s, void* r, size_t n, int dtype, int op, void* comm, void* st) {
  ncclDataType_t t;
  ncclRedOp_t o;
  if (prepare(dtype, op, &t, &o)) return -1;
  return check_nccl(ncclReduceScatter(s, r, n, t, o, C(comm), S(st)), "ncclReduceScatter");
}
int send(const void* b, size_t n, int dtype, int peer, void* comm, void* st) {
  ncclDataType_t t;
  if (prepare(dtype, -1, &t, nullptr)) return -1;
  return check_nccl(ncclSend(b, n, t, peer, C(comm), S(st)), "ncclSend");
}
int recv(void* b, size_t n, int dtype, int peer, void* comm, void* st) {
  ncclDataType_t t;
  if (prepare(dtype, -1, &t, nullptr)) return -1;
  return check_nccl(ncclRecv(b, n, t, peer, C(comm), S(st)), "ncclRecv");
}

}  // namespace

void fill_nccl_entries(nexar_cuda_plugin_table_v1* t) {
  t->has_nccl = 1;
  t->nccl_get_unique_id = get_unique_id;
  t->nccl_comm_init = comm_init;
  t->nccl_comm_destroy = comm_destroy;
  t->nccl_group_start = group_start;
  t->nccl_group_end = group_end;
  t->nccl_allreduce = allreduce;
  t->nccl_broadcast = broadcast;
  t->nccl_reduce = reduce;
  t->nccl_allgather = allgather;
  t->nccl_reduce_scatter = reduce_scatter;
  t->nccl_send = send;
  t->nccl_recv = recv;
}

}  // namespace nexar_cuda
