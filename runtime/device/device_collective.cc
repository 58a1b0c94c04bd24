// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/device_collective.h"

#include "comm/comm_coll_context.h"
#include "core/params.h"
#include "device/cuda_detect.h"
#include "device/device_comm.h"
#include "device/hier_collectives.h"
#include "device/hierarchy.h"
#include "device/staged_collective.h"

namespace nexar::device {

using coll::CollKind;

namespace {

Status run_device_collective(comm::Comm& c, const coll::CollArgs& a, DeviceComm& d) {
  const bool all_dev = all_device_buffers(a, c.rank(), c.size());
  if (coll::kind_traits(a.kind).nccl && !d.hierarchy_tried) {
    // The first collective that could use NCCL builds the hierarchy on every rank (also
    // with NEXAR_NCCL=0 here: the ranks then agree on staging).
    d.hierarchy_tried = true;
    NX_RETURN_IF_ERROR(build_hierarchy(c, d.plugin, all_dev && param::NEXAR_NCCL.get(), &d.hierarchy));
  }
  if (d.hierarchy && hier_applies(*d.hierarchy, a)) {
    if (!all_dev)
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    strprintf("%s mixes host and device buffers on the NCCL path (every rank must pass device "
                              "buffers; NEXAR_NCCL=0 stages each buffer instead)", coll::coll_kind_name(a.kind)));
    void* s = nullptr;
    bool user = false;
    NX_RETURN_IF_ERROR(d.work_stream(&s, &user));
    return comm::run_outside(c, a, "nccl", [&] { return run_hier(c, *d.hierarchy, a, s, user); });
  }
  return run_staged(c, a, d);
}

// A barrier on a communicator with a CUDA stream: the device work queued before it is
// complete on every rank when it returns.
Status stream_barrier(comm::Comm& c, const coll::CollArgs& a, DeviceComm& d) {
  if (void* s = d.user_stream(); s && d.plugin.api->stream_sync(s) != 0) return plugin_error(d.plugin, "barrier: stream synchronize");
  return comm::run_collective(c, a);
}

// The collectives with a count per rank run on host memory only (no staging or NCCL path
// for them yet): a device buffer is refused before any transfer, naming which one.
Status refuse_device_vector(const coll::CollArgs& a) {
  const char* which = a.sendbuf && memory_kind(a.sendbuf) == MemKind::DEVICE   ? "send buffer"
                      : a.recvbuf && memory_kind(a.recvbuf) == MemKind::DEVICE ? "receive buffer"
                                                                               : nullptr;
  if (!which) return Status::Ok();
  return Status(NEXAR_ERR_UNSUPPORTED, strprintf("the %s is CUDA device memory; the collectives with a count per rank "
                                                 "take host buffers only", which));
}

}  // namespace

bool host_only_call(const comm::Comm& c, const coll::CollArgs& a) {
  if (a.kind == CollKind::BARRIER) return host_only_span(c, a.kind, 0, 0);
  if (coll::counts_in_arrays(a.kind)) return !cuda_driver_loaded();
  uintptr_t lo, hi;
  buffer_span(a, c.rank(), c.size(), &lo, &hi);
  return host_only_span(c, a.kind, lo, hi);
}

bool host_only_span(const comm::Comm& c, CollKind kind, uintptr_t lo, uintptr_t hi) {
  if (kind == CollKind::BARRIER) {  // whether a CUDA stream is set, not where buffers are
    std::shared_ptr<DeviceComm> d = find_device_comm(c);
    return !d || !d->user_stream();
  }
  return span_in_brk_heap(lo, hi) || !cuda_driver_loaded();
}

bool host_while_heap_reaches(CollKind kind, uintptr_t lo, uintptr_t hi) {
  return kind != CollKind::BARRIER && lo != hi && span_in_brk_heap(lo, hi);
}

Status device_collective_task(const std::shared_ptr<comm::Comm>& c, const coll::CollArgs& a, comm::CollTaskPtr* task) {
  task->reset();
  if (host_only_call(*c, a)) return Status::Ok();
  if (a.kind == CollKind::BARRIER) {  // with a CUDA stream: looked up again, rarely
    std::shared_ptr<DeviceComm> d = find_device_comm(*c);
    if (d && d->user_stream())
      *task = std::make_shared<comm::CollTask>([c, a, d] { return stream_barrier(*c, a, *d); });
    return Status::Ok();
  }
  if (coll::kind_traits(a.kind).vector) return refuse_device_vector(a);
  if (!any_device_buffer(a, c->rank(), c->size())) return Status::Ok();
  std::shared_ptr<DeviceComm> d;
  Status st = device_comm(*c, &d);
  if (!st.ok())
    return Status(st.code(), "a buffer is CUDA device memory; " + st.message());
  *task = std::make_shared<comm::CollTask>([c, a, d] { return run_device_collective(*c, a, *d); });
  return Status::Ok();
}

}  // namespace nexar::device
