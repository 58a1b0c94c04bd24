// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Which collectives on device buffers the NCCL hierarchy runs (device/hier_collectives.h):
// the bitwise ops never (NCCL has none; they are staged and reduced on the host), AVG only
// on one host. Needs no GPU: the decision reads only the call and the hosts' count.
#include <catch.hpp>

#include "device/hier_collectives.h"
#include "device/hierarchy.h"

using nexar::coll::CollArgs;
using nexar::coll::CollKind;

namespace {

bool nccl_runs(CollKind kind, nexar_op_t op, int hosts) {
  nexar::device::Hierarchy h;
  h.topo.hosts = hosts;
  CollArgs a;
  a.kind = kind;
  a.dtype = NEXAR_INT32;
  a.op = op;
  return nexar::device::hier_applies(h, a);
}

}  // namespace

TEST_CASE("the NCCL path takes no bitwise op: BAND, BOR, BXOR are staged", "[cuda]") {
  for (int hosts : {1, 2})
    for (CollKind kind : {CollKind::ALLREDUCE, CollKind::REDUCE, CollKind::REDUCE_SCATTER}) {
      INFO("hosts " << hosts << " kind " << static_cast<int>(kind));
      for (nexar_op_t op : {NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR}) CHECK_FALSE(nccl_runs(kind, op, hosts));
      CHECK(nccl_runs(kind, NEXAR_MAX, hosts) == (hosts == 1 || kind != CollKind::REDUCE_SCATTER));
    }
  CHECK(nccl_runs(CollKind::ALLREDUCE, NEXAR_AVG, 1));
  CHECK_FALSE(nccl_runs(CollKind::ALLREDUCE, NEXAR_AVG, 2));
  CHECK(nccl_runs(CollKind::BROADCAST, NEXAR_SUM, 2));
}
