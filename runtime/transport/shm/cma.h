// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Cross-memory attach: copying from another process's memory with one system call and
// one copy (process_vm_readv). Permitted for a process of the same user unless Yama's
// ptrace_scope forbids it; whether it works is tested once per pair at connection.
// cma_read is inline: the communicator layer's direct-read collectives use it without
// linking the transport library.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/status.h"

namespace nexar::shm {

// Copies n bytes at remote address `from` in process pid into `to`, in pieces of at
// most chunk bytes. NEXAR_ERR_PEER_LOST if the process is gone, NEXAR_ERR_SYSTEM otherwise.
inline Status cma_read(pid_t pid, void* to, uint64_t from, size_t n, size_t chunk) {
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

// Whether this process may read pid's memory: reads 8 bytes at addr and compares.
bool cma_probe(pid_t pid, uint64_t addr, uint64_t expected);

}  // namespace nexar::shm
