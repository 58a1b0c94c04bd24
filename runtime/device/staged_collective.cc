// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/staged_collective.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "comm/comm_coll_context.h"
#include "core/dtype.h"
#include "device/cuda_adapter.h"
#include "device/cuda_detect.h"
#include "device/pinned_pool.h"

namespace nexar::device {

using coll::CollKind;

namespace {

bool is_root(const coll::CollArgs& a, int rank) { return a.root == rank; }

// A device memory range of the call with its pinned shadow. Overlapping ranges (in-place
// calls) share one shadow, so the host algorithm sees the same aliasing.
struct Region {
  const uint8_t* dev = nullptr;
  size_t bytes = 0;
  PinnedBuffer host;
};

struct Shadows {
  std::vector<Region> regions;

  void add(const void* p, size_t bytes) {
    if (!p || bytes == 0 || memory_kind(p) != MemKind::DEVICE) return;
    auto lo = static_cast<const uint8_t*>(p);
    const uint8_t* hi = lo + bytes;
    for (Region& r : regions) {
      if (lo < r.dev + r.bytes && r.dev < hi) {  // overlap: widen
        const uint8_t* nlo = std::min(lo, r.dev);
        r.bytes = static_cast<size_t>(std::max(hi, r.dev + r.bytes) - nlo);
        r.dev = nlo;
        return;
      }
    }
    regions.push_back(Region{lo, bytes, {}});
  }
  Status allocate(const CudaPlugin& p) {
    for (Region& r : regions) NX_RETURN_IF_ERROR(PinnedBuffer::acquire(p, r.bytes, &r.host));
    return Status::Ok();
  }
  // The host address standing for p (p itself when it is not in a device range).
  uint8_t* map(const void* p) const {
    auto q = static_cast<const uint8_t*>(p);
    for (const Region& r : regions)
      if (q >= r.dev && q < r.dev + r.bytes) return r.host.data() + (q - r.dev);
    return const_cast<uint8_t*>(q);
  }
};

size_t block_bytes(const coll::CollArgs& a) { return a.count * dtype_size(a.dtype); }

Status run_bucketed(comm::Comm& c, const coll::CollArgs& a, DeviceComm& d) {
  Shadows sh;
  for (size_t i = 0; i < a.nbufs; ++i) sh.add(a.bufs[i], a.counts[i] * dtype_size(a.dtype));
  NX_RETURN_IF_ERROR(sh.allocate(d.plugin));
  CudaAdapter cuda(d.plugin);
  void* s = nullptr;
  bool user = false;
  NX_RETURN_IF_ERROR(d.work_stream(&s, &user));
  std::vector<void*> host(a.nbufs);
  for (size_t i = 0; i < a.nbufs; ++i) {
    host[i] = sh.map(a.bufs[i]);
    if (host[i] != a.bufs[i]) NX_RETURN_IF_ERROR(cuda.stage_for_send(a.bufs[i], host[i], a.counts[i] * dtype_size(a.dtype), s));
  }
  NX_RETURN_IF_ERROR(cuda.sync(s));
  coll::CollArgs h = a;
  h.bufs = host.data();
  NX_RETURN_IF_ERROR(comm::run_collective(c, h));
  for (size_t i = 0; i < a.nbufs; ++i)
    if (host[i] != a.bufs[i]) NX_RETURN_IF_ERROR(cuda.receive_to_device(host[i], a.bufs[i], a.counts[i] * dtype_size(a.dtype), s));
  return cuda.sync(s);
}

}  // namespace

size_t input_bytes(const coll::CollArgs& a, int rank, int size) {
  return coll::extent_elements(coll::kind_traits(a.kind).in, a.count, size, is_root(a, rank)) * dtype_size(a.dtype);
}

size_t output_bytes(const coll::CollArgs& a, int rank, int size) {
  return coll::extent_elements(coll::kind_traits(a.kind).out, a.count, size, is_root(a, rank)) * dtype_size(a.dtype);
}

// Where this rank's input is: BROADCAST's buffer is recvbuf (the API passes it as both); an
// in-place ALLGATHER or GATHER has it at recvbuf + rank * count.
static const void* input_ptr(const coll::CollArgs& a, int rank) {
  if (coll::kind_traits(a.kind).input_in_recvbuf) return a.recvbuf;
  if ((a.kind == CollKind::ALLGATHER || a.kind == CollKind::GATHER) && a.sendbuf == a.recvbuf && a.recvbuf)
    return static_cast<const uint8_t*>(a.recvbuf) + block_bytes(a) * static_cast<size_t>(rank);
  return a.sendbuf;
}

bool any_device_buffer(const coll::CollArgs& a, int rank, int size) {
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) {
    for (size_t i = 0; i < a.nbufs; ++i)
      if (a.counts[i] && memory_kind(a.bufs[i]) == MemKind::DEVICE) return true;
    return false;
  }
  return (input_bytes(a, rank, size) && memory_kind(input_ptr(a, rank)) == MemKind::DEVICE) ||
         (output_bytes(a, rank, size) && memory_kind(a.recvbuf) == MemKind::DEVICE);
}

void buffer_span(const coll::CollArgs& a, int rank, int size, uintptr_t* lo, uintptr_t* hi) {
  const size_t in = input_bytes(a, rank, size), out = output_bytes(a, rank, size);
  const auto i = reinterpret_cast<uintptr_t>(input_ptr(a, rank)), o = reinterpret_cast<uintptr_t>(a.recvbuf);
  uintptr_t l = UINTPTR_MAX, h = 0;
  if (in) l = i, h = i + in;
  if (out) l = std::min(l, o), h = std::max(h, o + out);
  *lo = h ? l : 0;
  *hi = h;
}

bool span_in_brk_heap(uintptr_t lo, uintptr_t hi) {
  return lo == hi || in_brk_heap(reinterpret_cast<const void*>(lo), hi - lo);
}

bool all_device_buffers(const coll::CollArgs& a, int rank, int size) {
  const bool in = input_bytes(a, rank, size) > 0, out = output_bytes(a, rank, size) > 0;
  if (a.kind == CollKind::ALLREDUCE_BUCKETED || (!in && !out)) return false;
  return (!in || memory_kind(input_ptr(a, rank)) == MemKind::DEVICE) && (!out || memory_kind(a.recvbuf) == MemKind::DEVICE);
}

Status run_staged(comm::Comm& c, const coll::CollArgs& a, DeviceComm& d) {
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) return run_bucketed(c, a, d);
  const size_t in = input_bytes(a, c.rank(), c.size()), out = output_bytes(a, c.rank(), c.size());
  // In place, recvbuf also holds the inputs: REDUCE_SCATTER's size*count of them.
  const size_t recv_span = (a.sendbuf == a.recvbuf) ? std::max(in, out) : out;
  Shadows sh;
  const void* src = input_ptr(a, c.rank());
  sh.add(src, in);
  sh.add(a.recvbuf, recv_span);
  NX_RETURN_IF_ERROR(sh.allocate(d.plugin));
  CudaAdapter cuda(d.plugin);
  void* s = nullptr;
  bool user = false;
  NX_RETURN_IF_ERROR(d.work_stream(&s, &user));
  if (in && sh.map(src) != src) NX_RETURN_IF_ERROR(cuda.copy_in(src, sh.map(src), in, s));
  coll::CollArgs h = a;
  h.sendbuf = a.sendbuf == a.recvbuf ? sh.map(a.recvbuf) : sh.map(a.sendbuf);
  h.recvbuf = sh.map(a.recvbuf);
  NX_RETURN_IF_ERROR(comm::run_collective(c, h));
  if (out && h.recvbuf != a.recvbuf) NX_RETURN_IF_ERROR(cuda.copy_out(h.recvbuf, a.recvbuf, out, s));
  return Status::Ok();
}

}  // namespace nexar::device
