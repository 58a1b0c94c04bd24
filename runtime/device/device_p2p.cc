// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/device_p2p.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "device/cuda_adapter.h"
#include "device/cuda_detect.h"
#include "device/device_comm.h"
#include "device/pinned_pool.h"

namespace nexar::device {

namespace {

struct Staged {
  std::shared_ptr<DeviceComm> dev;
  PinnedBuffer host;
  void* device_dst = nullptr;  // receives: where the message goes
};

// Staging of requests in flight, by request. Looked up only while any exists.
struct Table {
  std::mutex mu;
  std::unordered_map<const p2p::Request*, Staged> map;
  std::atomic<size_t> count{0};
};

Table& table() {
  static Table* t = new Table;
  return *t;
}

void remember(const p2p::RequestPtr& r, Staged s) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.map.emplace(r.get(), std::move(s));
  t.count.fetch_add(1);
}

bool take(const p2p::Request* r, Staged* out) {
  Table& t = table();
  if (t.count.load() == 0) return false;
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.map.find(r);
  if (it == t.map.end()) return false;
  *out = std::move(it->second);
  t.map.erase(it);
  t.count.fetch_sub(1);
  return true;
}

Status prepare(comm::Comm& c, size_t bytes, const char* what, Staged* s) {
  Status st = device_comm(c, &s->dev);
  if (!st.ok()) return Status(st.code(), strprintf("%s is CUDA device memory; %s", what, st.message().c_str()));
  return PinnedBuffer::acquire(s->dev->plugin, bytes, &s->host);
}

bool on_device(const void* buf, size_t bytes) { return bytes > 0 && memory_kind(buf) == MemKind::DEVICE; }

}  // namespace

Status isend(comm::Comm& c, const void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out) {
  if (!on_device(buf, bytes)) return c.isend(c.p2p_context(), buf, bytes, peer, tag, out);
  Staged s;
  NX_RETURN_IF_ERROR(prepare(c, bytes, "send buffer", &s));
  CudaAdapter cuda(s.dev->plugin);
  NX_RETURN_IF_ERROR(cuda.copy_in(buf, s.host.data(), bytes, s.dev->user_stream()));
  NX_RETURN_IF_ERROR(c.isend(c.p2p_context(), s.host.data(), bytes, peer, tag, out));
  remember(*out, std::move(s));
  return Status::Ok();
}

Status irecv(comm::Comm& c, void* buf, size_t bytes, int peer, int tag, p2p::RequestPtr* out) {
  if (!on_device(buf, bytes)) return c.irecv(c.p2p_context(), buf, bytes, peer, tag, out);
  Staged s;
  NX_RETURN_IF_ERROR(prepare(c, bytes, "receive buffer", &s));
  s.device_dst = buf;
  NX_RETURN_IF_ERROR(c.irecv(c.p2p_context(), s.host.data(), bytes, peer, tag, out));
  remember(*out, std::move(s));
  return Status::Ok();
}

Status wait(comm::Comm& c, const p2p::RequestPtr& r) {
  Status st = c.wait(r, c.deadline());
  Staged s;
  if (!take(r.get(), &s)) return st;
  // A failed or timed-out request was cancelled by wait(): its buffer is never used again.
  if (!st.ok() || !s.device_dst) return st;
  CudaAdapter cuda(s.dev->plugin);
  return cuda.copy_out(s.host.data(), s.device_dst, r->bytes, s.dev->user_stream());
}

}  // namespace nexar::device
