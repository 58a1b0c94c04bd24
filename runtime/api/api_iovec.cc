// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_sendv and nexar_recvv: one message gathered from, or scattered into, several
// regions of host memory.
#include <cstring>
#include <memory>
#include <vector>

#include "api/api_p2p.h"
#include "device/cuda_detect.h"

using nexar::Status;

namespace {

using Regions = std::shared_ptr<const std::vector<nexar_iovec_t>>;

// Checks a list of n regions and copies it (a grouped call runs after the caller's list
// may be gone); *total gets the message size.
Status take_regions(const nexar_iovec_t* iov, size_t n, const char* what, Regions* out, size_t* total) {
  *total = 0;
  if (n > 0 && !iov) return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("%s list is NULL with n = %zu", what, n));
  for (size_t i = 0; i < n; ++i) {
    if (!iov[i].base && iov[i].bytes)
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    nexar::strprintf("%s region %zu is NULL with %zu bytes", what, i, iov[i].bytes));
    if (iov[i].bytes > SIZE_MAX - *total)
      return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("%s regions' sizes overflow at region %zu", what, i));
    if (iov[i].bytes && nexar::device::memory_kind(iov[i].base) == nexar::device::MemKind::DEVICE)
      return Status(NEXAR_ERR_UNSUPPORTED,
                    nexar::strprintf("%s region %zu is CUDA device memory; gather/scatter lists take host memory", what, i));
    *total += iov[i].bytes;
  }
  *out = std::make_shared<const std::vector<nexar_iovec_t>>(iov, iov + n);
  return Status::Ok();
}

// The only region with bytes in it, or NULL when there are several (or none).
const nexar_iovec_t* single_region(const std::vector<nexar_iovec_t>& v) {
  const nexar_iovec_t* one = nullptr;
  for (const auto& r : v) {
    if (!r.bytes) continue;
    if (one) return nullptr;
    one = &r;
  }
  return one;
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_sendv(const nexar_iovec_t* iov, size_t n, int peer, int tag, nexar_comm_t comm) {
  Regions regions;
  size_t total = 0;
  Status st = take_regions(iov, n, "send", &regions, &total);
  const auto f = nexar::api::p2p_facts(nexar::trace::CallKind::kSendv, total, NEXAR_UINT8, peer, tag);
  // One message on the wire: a single region goes from where it is; several are packed
  // once into a buffer that lives as long as the operation.
  auto packed = std::make_shared<std::vector<uint8_t>>();
  auto start = [=](nexar::p2p::RequestPtr* r, nexar::trace::P2pMark* mark) {
    const void* data = nullptr;
    if (const nexar_iovec_t* one = single_region(*regions)) {
      data = one->base;
    } else if (total) {
      packed->resize(total);
      size_t off = 0;
      for (const auto& reg : *regions) {
        if (reg.bytes) std::memcpy(packed->data() + off, reg.base, reg.bytes);
        off += reg.bytes;
      }
      data = packed->data();
    }
    return nexar::api::start_send(comm, data, total, f, r, mark);
  };
  return nexar::api::run_p2p(comm, true, peer, tag, st, start, nullptr, nullptr);
}

NEXAR_API nexar_result_t nexar_recvv(const nexar_iovec_t* iov, size_t n, int source, int tag, nexar_comm_t comm,
                                     nexar_status_t* status) {
  Regions regions;
  size_t total = 0;
  Status st = take_regions(iov, n, "receive", &regions, &total);
  const auto f = nexar::api::p2p_facts(nexar::trace::CallKind::kRecvv, total, NEXAR_UINT8, source, tag);
  auto start = [=](nexar::p2p::RequestPtr* r, nexar::trace::P2pMark* mark) {
    // One region: an ordinary receive (placed straight into it by every transport).
    if (const nexar_iovec_t* one = single_region(*regions))
      return nexar::api::start_recv(comm, const_cast<void*>(one->base), one->bytes, f, r, mark);
    NX_RETURN_IF_ERROR(nexar::api::check_recv_args(comm, source, tag));
    auto& c = *comm->comm;
    std::vector<iovec> to;
    for (const auto& reg : *regions)
      if (reg.bytes) to.push_back(iovec{const_cast<void*>(reg.base), reg.bytes});
    const int src = source == NEXAR_ANY_SOURCE ? NEXAR_ANY_SOURCE : c.world_rank_of(source);
    NX_RETURN_IF_ERROR(c.fail(c.engine().irecvv(c.p2p_context(), src, tag, std::move(to), r)));
    *mark = nexar::api::record_p2p(c, f);
    return Status::Ok();
  };
  return nexar::api::run_p2p(comm, false, source, tag, st, start, nullptr, status);
}

}  // extern "C"
