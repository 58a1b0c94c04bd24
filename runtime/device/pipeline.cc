// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/pipeline.h"

#include <algorithm>

#include "comm/comm_coll_context.h"
#include "core/dtype.h"
#include "device/cuda_adapter.h"
#include "device/pinned_pool.h"

namespace nexar::device {

namespace {

// Two events, destroyed with the pipeline; the stream is drained first so that no copy
// still uses a staging buffer when the buffers go back to the pool.
struct Slots {
  const CudaPlugin& p;
  void* stream;
  void* ev[2] = {nullptr, nullptr};
  PinnedBuffer buf[2];
  ~Slots() {
    (void)p.api->stream_sync(stream);
    for (void* e : ev)
      if (e) (void)p.api->event_destroy(e);
  }
};

}  // namespace

Status pipelined_host_collective(comm::Comm& cross, const CudaPlugin& p, void* stream, void* dev, size_t count,
                                 const coll::CollArgs& proto, bool copy_in, bool copy_out) {
  if (count == 0) return Status::Ok();
  const size_t es = dtype_size(proto.dtype);
  const size_t chunk = std::max<size_t>(1, chunk_bytes() / es);
  const size_t nchunks = (count + chunk - 1) / chunk;
  auto* base = static_cast<uint8_t*>(dev);
  Slots s{p, stream};
  for (int i = 0; i < 2; ++i) {
    NX_RETURN_IF_ERROR(PinnedBuffer::acquire(p, std::min(chunk, count) * es, &s.buf[i]));
    if (p.api->event_create(&s.ev[i]) != 0) return plugin_error(p, "pipeline event");
  }
  auto span = [&](size_t k, size_t* off, size_t* len) {
    *off = k * chunk;
    *len = std::min(chunk, count - *off);
  };
  // Queues chunk k's copy to the host (when it is an input) and marks it with an event.
  // Stream order puts it after the copy back of chunk k-2, which used the same buffer.
  auto stage = [&](size_t k) -> Status {
    size_t off, len;
    span(k, &off, &len);
    if (copy_in && p.api->memcpy_async(s.buf[k % 2].data(), base + off * es, len * es, NEXAR_COPY_D2H, stream) != 0)
      return plugin_error(p, "pipelined device-to-host copy");
    if (p.api->event_record(s.ev[k % 2], stream) != 0) return plugin_error(p, "pipeline event record");
    return Status::Ok();
  };
  NX_RETURN_IF_ERROR(stage(0));
  for (size_t k = 0; k < nchunks; ++k) {
    if (k + 1 < nchunks) NX_RETURN_IF_ERROR(stage(k + 1));
    if (p.api->event_sync(s.ev[k % 2]) != 0) return plugin_error(p, "pipeline event wait");
    size_t off, len;
    span(k, &off, &len);
    coll::CollArgs a = proto;
    a.sendbuf = a.recvbuf = s.buf[k % 2].data();
    a.count = len;
    NX_RETURN_IF_ERROR(comm::run_collective(cross, a));
    if (copy_out && p.api->memcpy_async(base + off * es, s.buf[k % 2].data(), len * es, NEXAR_COPY_H2D, stream) != 0)
      return plugin_error(p, "pipelined host-to-device copy");
  }
  if (p.api->stream_sync(stream) != 0) return plugin_error(p, "pipeline stream synchronize");
  return Status::Ok();
}

}  // namespace nexar::device
