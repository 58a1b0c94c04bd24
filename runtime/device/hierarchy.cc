// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/hierarchy.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "comm/comm_coll_context.h"
#include "comm/comm_split.h"
#include "core/log.h"

namespace nexar::device {

namespace {

// Collective over c: true when every rank passed true.
Status all_agree(comm::Comm& c, bool mine, bool* all) {
  coll::CollArgs a;
  a.kind = coll::CollKind::ALLREDUCE;
  uint8_t in = mine ? 1 : 0, res = 0;
  a.sendbuf = &in;
  a.recvbuf = &res;
  a.count = 1;
  a.dtype = NEXAR_UINT8;
  a.op = NEXAR_MIN;
  NX_RETURN_IF_ERROR(comm::run_collective(c, a));
  *all = res != 0;
  return Status::Ok();
}

// The NCCL unique id, made by the node's local rank 0 and broadcast over the node: 128
// bytes of id plus one byte saying whether making it worked.
Status share_nccl_id(comm::Comm& node, const CudaPlugin& p, uint8_t id[NEXAR_NCCL_ID_BYTES + 1], std::string* why) {
  std::memset(id, 0, NEXAR_NCCL_ID_BYTES + 1);
  if (node.rank() == 0) {
    if (p.api->nccl_get_unique_id(id) == 0) id[NEXAR_NCCL_ID_BYTES] = 1;
    else *why = p.api->last_error();
  }
  coll::CollArgs a;
  a.kind = coll::CollKind::BROADCAST;
  a.sendbuf = a.recvbuf = id;
  a.count = NEXAR_NCCL_ID_BYTES + 1;
  a.dtype = NEXAR_UINT8;
  a.root = 0;
  return comm::run_collective(node, a);
}

}  // namespace

Topology topology_of(const comm::Comm& c) {
  Topology t;
  const auto& ids = c.world()->host_ids;
  std::unordered_map<std::string, int> index;
  t.host_of.resize(static_cast<size_t>(c.size()));
  t.local_of.resize(static_cast<size_t>(c.size()));
  for (int r = 0; r < c.size(); ++r) {
    const std::string& id = ids[static_cast<size_t>(c.world_rank_of(r))];
    auto [it, fresh] = index.emplace(id, static_cast<int>(index.size()));
    if (fresh) t.hosts_local.push_back(0);
    const int h = it->second;
    t.host_of[static_cast<size_t>(r)] = h;
    t.local_of[static_cast<size_t>(r)] = t.hosts_local[static_cast<size_t>(h)]++;
  }
  t.hosts = static_cast<int>(t.hosts_local.size());
  t.my_host = t.host_of[static_cast<size_t>(c.rank())];
  t.local_rank = t.local_of[static_cast<size_t>(c.rank())];
  t.local_size = t.hosts_local[static_cast<size_t>(t.my_host)];
  t.min_local = *std::min_element(t.hosts_local.begin(), t.hosts_local.end());
  return t;
}

Hierarchy::~Hierarchy() {
  if (nccl) (void)plugin->api->nccl_comm_destroy(nccl);
}

Status build_hierarchy(comm::Comm& c, const CudaPlugin& p, bool want, std::unique_ptr<Hierarchy>* out) {
  out->reset();
  bool all = false;
  NX_RETURN_IF_ERROR(all_agree(c, want && p.api->has_nccl, &all));
  if (!all) {
    NX_INFO(COLL, "NCCL path off for this communicator (NEXAR_NCCL=0 or no NCCL on some rank): staging through host memory");
    return Status::Ok();
  }
  auto h = std::make_unique<Hierarchy>();
  h->plugin = &p;
  h->topo = topology_of(c);
  const Topology& t = h->topo;
  NX_RETURN_IF_ERROR(comm::split(c, t.my_host, c.rank(), &h->node));
  uint8_t id[NEXAR_NCCL_ID_BYTES + 1];
  std::string why;
  NX_RETURN_IF_ERROR(share_nccl_id(*h->node, p, id, &why));
  bool ok = id[NEXAR_NCCL_ID_BYTES] != 0;
  if (!ok && why.empty()) why = "the host's local rank 0 could not make an NCCL id";
  if (ok && p.api->nccl_comm_init(&h->nccl, t.local_size, id, t.local_rank) != 0) {
    ok = false;
    why = p.api->last_error();
    h->nccl = nullptr;
  }
  NX_RETURN_IF_ERROR(all_agree(c, ok, &all));
  const int color = t.local_rank < t.min_local ? t.local_rank : NEXAR_UNDEFINED;
  if (all) NX_RETURN_IF_ERROR(comm::split(c, color, t.my_host, &h->cross));
  if (!all) {
    NX_WARN(COLL, "NCCL communicator not formed (%s); device buffers are staged through host memory",
            why.empty() ? "failed on another rank" : why.c_str());
    return Status::Ok();  // h's destructor frees a half-made NCCL communicator
  }
  NX_INFO(COLL, "NCCL hierarchy: %d host(s), local rank %d of %d, %d rank(s) per host at least", t.hosts, t.local_rank,
          t.local_size, t.min_local);
  *out = std::move(h);
  return Status::Ok();
}

}  // namespace nexar::device
