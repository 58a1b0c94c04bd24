// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/hier_collectives.h"

#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "device/pipeline.h"

namespace nexar::device {

using coll::CollKind;

namespace {

struct Ctx {
  comm::Comm& c;
  Hierarchy& h;
  const nexar_cuda_plugin_table_v1& api;
  void* s;
  Status check(int rc, const char* what) const { return rc == 0 ? Status::Ok() : plugin_error(*h.plugin, what); }
  uint8_t* at(const void* p, size_t elems, nexar_dtype_t d) const {
    return static_cast<uint8_t*>(const_cast<void*>(p)) + elems * dtype_size(d);
  }
};

coll::CollArgs proto(CollKind k, nexar_dtype_t d, nexar_op_t op = NEXAR_SUM, int root = 0) {
  coll::CollArgs a;
  a.kind = k;
  a.dtype = d;
  a.op = op;
  a.root = root;
  return a;
}

// Small: NCCL reduce to local rank 0, allreduce between hosts among the local ranks 0,
// NCCL broadcast back.
Status allreduce_small(Ctx& x, const coll::CollArgs& a) {
  auto& t = x.h.topo;
  NX_RETURN_IF_ERROR(x.check(x.api.nccl_reduce(a.sendbuf, a.recvbuf, a.count, a.dtype, a.op, 0, x.h.nccl, x.s), "ncclReduce"));
  if (t.local_rank == 0)
    NX_RETURN_IF_ERROR(pipelined_host_collective(*x.h.cross, *x.h.plugin, x.s, a.recvbuf, a.count,
                                                 proto(CollKind::ALLREDUCE, a.dtype, a.op), true, true));
  return x.check(x.api.nccl_broadcast(a.recvbuf, a.recvbuf, a.count, a.dtype, 0, x.h.nccl, x.s), "ncclBroadcast");
}

// Large: shard s of S = min_local shards is reduced inside each host to local rank s,
// allreduced between hosts among the local ranks s, and spread back inside each host.
// Every shard crosses between hosts, each on its own cross communicator, concurrently.
// Equal hosts and an even split use NCCL reduce-scatter and allgather; otherwise grouped
// NCCL reduces and broadcasts give the same shards for uneven hosts.
Status allreduce_large(Ctx& x, const coll::CollArgs& a) {
  auto& t = x.h.topo;
  const size_t es = dtype_size(a.dtype), S = static_cast<size_t>(t.min_local);
  bool uniform = a.count % S == 0;
  for (int l : t.hosts_local) uniform = uniform && static_cast<size_t>(l) == S;
  if (a.sendbuf != a.recvbuf)
    NX_RETURN_IF_ERROR(x.check(x.api.memcpy_async(a.recvbuf, a.sendbuf, a.count * es, NEXAR_COPY_D2D, x.s), "copy to recvbuf"));
  const size_t base = a.count / S;
  auto off = [&](size_t s) { return s * base; };
  auto len = [&](size_t s) { return s + 1 == S ? a.count - s * base : base; };
  const size_t l = static_cast<size_t>(t.local_rank);
  if (uniform) {
    NX_RETURN_IF_ERROR(x.check(x.api.nccl_reduce_scatter(a.recvbuf, x.at(a.recvbuf, off(l), a.dtype), base, a.dtype,
                                                         a.op, x.h.nccl, x.s), "ncclReduceScatter"));
  } else {
    NX_RETURN_IF_ERROR(x.check(x.api.nccl_group_start(), "ncclGroupStart"));
    for (size_t s = 0; s < S; ++s) {
      uint8_t* p = x.at(a.recvbuf, off(s), a.dtype);
      NX_RETURN_IF_ERROR(x.check(x.api.nccl_reduce(p, p, len(s), a.dtype, a.op, static_cast<int>(s), x.h.nccl, x.s), "ncclReduce"));
    }
    NX_RETURN_IF_ERROR(x.check(x.api.nccl_group_end(), "ncclGroupEnd"));
  }
  if (l < S)
    NX_RETURN_IF_ERROR(pipelined_host_collective(*x.h.cross, *x.h.plugin, x.s, x.at(a.recvbuf, off(l), a.dtype), len(l),
                                                 proto(CollKind::ALLREDUCE, a.dtype, a.op), true, true));
  if (uniform)
    return x.check(x.api.nccl_allgather(x.at(a.recvbuf, off(l), a.dtype), a.recvbuf, base, a.dtype, x.h.nccl, x.s),
                   "ncclAllGather");
  NX_RETURN_IF_ERROR(x.check(x.api.nccl_group_start(), "ncclGroupStart"));
  for (size_t s = 0; s < S; ++s) {
    uint8_t* p = x.at(a.recvbuf, off(s), a.dtype);
    NX_RETURN_IF_ERROR(x.check(x.api.nccl_broadcast(p, p, len(s), a.dtype, static_cast<int>(s), x.h.nccl, x.s), "ncclBroadcast"));
  }
  return x.check(x.api.nccl_group_end(), "ncclGroupEnd");
}

// Inside the root's host from the root, between hosts among local ranks 0 from the root's
// host, then inside the other hosts from their local rank 0.
Status broadcast(Ctx& x, const coll::CollArgs& a) {
  auto& t = x.h.topo;
  const int rh = t.host_of[static_cast<size_t>(a.root)], rl = t.local_of[static_cast<size_t>(a.root)];
  const bool root_host = t.my_host == rh;
  if (root_host)
    NX_RETURN_IF_ERROR(x.check(x.api.nccl_broadcast(a.recvbuf, a.recvbuf, a.count, a.dtype, rl, x.h.nccl, x.s), "ncclBroadcast"));
  if (t.local_rank == 0)
    NX_RETURN_IF_ERROR(pipelined_host_collective(*x.h.cross, *x.h.plugin, x.s, a.recvbuf, a.count,
                                                 proto(CollKind::BROADCAST, a.dtype, NEXAR_SUM, rh), root_host, !root_host));
  if (!root_host)
    NX_RETURN_IF_ERROR(x.check(x.api.nccl_broadcast(a.recvbuf, a.recvbuf, a.count, a.dtype, 0, x.h.nccl, x.s), "ncclBroadcast"));
  return Status::Ok();
}

// NCCL reduce to each host's local rank 0, nexar reduce between hosts to the root's host,
// then (when the root is not its host's local rank 0) an NCCL send to the root.
Status reduce(Ctx& x, const coll::CollArgs& a) {
  auto& t = x.h.topo;
  const int rh = t.host_of[static_cast<size_t>(a.root)], rl = t.local_of[static_cast<size_t>(a.root)];
  const bool me_root = x.c.rank() == a.root, lead = t.local_rank == 0;
  const size_t bytes = a.count * dtype_size(a.dtype);
  void* scratch = nullptr;  // a lead's partial result when it is not the root
  struct Free {
    const nexar_cuda_plugin_table_v1& api;
    void*& p;
    ~Free() { if (p) (void)api.device_free(p); }
  } free_scratch{x.api, scratch};
  void* target = me_root ? a.recvbuf : nullptr;
  if (lead && !me_root) {
    NX_RETURN_IF_ERROR(x.check(x.api.device_alloc(bytes ? bytes : 1, &scratch), "reduce scratch"));
    target = scratch;
  }
  NX_RETURN_IF_ERROR(x.check(x.api.nccl_reduce(a.sendbuf, target, a.count, a.dtype, a.op, 0, x.h.nccl, x.s), "ncclReduce"));
  if (lead)
    NX_RETURN_IF_ERROR(pipelined_host_collective(*x.h.cross, *x.h.plugin, x.s, target, a.count,
                                                 proto(CollKind::REDUCE, a.dtype, a.op, rh), true, t.my_host == rh));
  if (t.my_host == rh && rl != 0) {
    if (lead) NX_RETURN_IF_ERROR(x.check(x.api.nccl_send(target, a.count, a.dtype, rl, x.h.nccl, x.s), "ncclSend"));
    if (me_root) NX_RETURN_IF_ERROR(x.check(x.api.nccl_recv(a.recvbuf, a.count, a.dtype, 0, x.h.nccl, x.s), "ncclRecv"));
  }
  if (scratch) NX_RETURN_IF_ERROR(x.check(x.api.stream_sync(x.s), "stream synchronize"));  // before the scratch is freed
  return Status::Ok();
}

// One host: NCCL's own allgather and reduce-scatter (node rank = comm rank).
Status allgather_one_host(Ctx& x, const coll::CollArgs& a) {
  const void* send = a.sendbuf == a.recvbuf ? x.at(a.recvbuf, a.count * static_cast<size_t>(x.c.rank()), a.dtype) : a.sendbuf;
  return x.check(x.api.nccl_allgather(send, a.recvbuf, a.count, a.dtype, x.h.nccl, x.s), "ncclAllGather");
}

Status reduce_scatter_one_host(Ctx& x, const coll::CollArgs& a) {
  if (a.sendbuf != a.recvbuf)
    return x.check(x.api.nccl_reduce_scatter(a.sendbuf, a.recvbuf, a.count, a.dtype, a.op, x.h.nccl, x.s),
                   "ncclReduceScatter");
  // In place: NCCL leaves block r at its place; nexar wants it at the start.
  uint8_t* mine = x.at(a.recvbuf, a.count * static_cast<size_t>(x.c.rank()), a.dtype);
  NX_RETURN_IF_ERROR(x.check(x.api.nccl_reduce_scatter(a.recvbuf, mine, a.count, a.dtype, a.op, x.h.nccl, x.s), "ncclReduceScatter"));
  if (x.c.rank() == 0) return Status::Ok();
  return x.check(x.api.memcpy_async(a.recvbuf, mine, a.count * dtype_size(a.dtype), NEXAR_COPY_D2D, x.s), "block to start");
}

}  // namespace

bool hier_applies(const Hierarchy& h, const coll::CollArgs& a) {
  if (!coll::kind_traits(a.kind).nccl) return false;
  // NCCL has no bitwise ops: BAND / BOR / BXOR are staged and reduced on the host.
  if (coll::kind_traits(a.kind).op && op_is_bitwise(a.op)) return false;
  const bool one_host = h.topo.hosts == 1;
  switch (a.kind) {
    case CollKind::ALLREDUCE: case CollKind::REDUCE: return one_host || a.op != NEXAR_AVG;
    case CollKind::BROADCAST: return true;
    case CollKind::ALLGATHER: case CollKind::REDUCE_SCATTER: return one_host;
    default: return false;
  }
}

Status run_hier(comm::Comm& c, Hierarchy& h, const coll::CollArgs& a, void* stream, bool leave_async) {
  Ctx x{c, h, *h.plugin->api, stream};
  const bool one_host = h.topo.hosts == 1;
  Status st;
  switch (a.kind) {
    case CollKind::ALLREDUCE: {
      const size_t bytes = a.count * dtype_size(a.dtype);
      const auto small = static_cast<size_t>(param::NEXAR_NCCL_SMALL_BYTES.get());
      if (one_host)
        st = x.check(x.api.nccl_allreduce(a.sendbuf, a.recvbuf, a.count, a.dtype, a.op, h.nccl, stream), "ncclAllReduce");
      else if (bytes <= small || h.topo.min_local == 1 || a.count < static_cast<size_t>(h.topo.min_local))
        st = allreduce_small(x, a);
      else
        st = allreduce_large(x, a);
      break;
    }
    case CollKind::BROADCAST: st = one_host ? x.check(x.api.nccl_broadcast(a.recvbuf, a.recvbuf, a.count, a.dtype, a.root, h.nccl, stream), "ncclBroadcast") : broadcast(x, a); break;
    case CollKind::REDUCE: st = one_host ? x.check(x.api.nccl_reduce(a.sendbuf, a.recvbuf, a.count, a.dtype, a.op, a.root, h.nccl, stream), "ncclReduce") : reduce(x, a); break;
    case CollKind::ALLGATHER: st = allgather_one_host(x, a); break;
    case CollKind::REDUCE_SCATTER: st = reduce_scatter_one_host(x, a); break;
    default: return Status(NEXAR_ERR_INTERNAL, "no NCCL path for this collective");
  }
  NX_RETURN_IF_ERROR(st);
  if (leave_async) return Status::Ok();
  return x.check(x.api.stream_sync(stream), "stream synchronize");
}

}  // namespace nexar::device
