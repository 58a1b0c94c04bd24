// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/cma.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace nexar::shm {

Status cma_read(pid_t pid, void* to, uint64_t from, size_t n, size_t chunk) {
  auto* dst = static_cast<uint8_t*>(to);
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, chunk);
    iovec local{dst + done, want};
    iovec remote{reinterpret_cast<void*>(from + done), want};
    ssize_t got = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == ESRCH)
        return Status(NEXAR_ERR_PEER_LOST, strprintf("process %d exited while its message was read", static_cast<int>(pid)));
      return Status(NEXAR_ERR_SYSTEM, strprintf("reading %zu bytes from process %d: %s", want,
                                                static_cast<int>(pid), std::strerror(errno)));
    }
    if (got == 0)
      return Status(NEXAR_ERR_SYSTEM, strprintf("reading from process %d made no progress", static_cast<int>(pid)));
    done += static_cast<size_t>(got);
  }
  return Status::Ok();
}

bool cma_probe(pid_t pid, uint64_t addr, uint64_t expected) {
  uint64_t v = 0;
  return cma_read(pid, &v, addr, sizeof(v), sizeof(v)).ok() && v == expected;
}

}  // namespace nexar::shm
