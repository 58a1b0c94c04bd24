// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/cma.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace nexar::shm {

namespace {
// One loop for both directions: `local` is this process's buffer, `remote` the address in
// pid; write says which way the bytes go.
Status cma_copy(pid_t pid, uint8_t* local, uint64_t remote, size_t n, size_t chunk, bool write) {
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, chunk);
    iovec l{local + done, want};
    iovec r{reinterpret_cast<void*>(remote + done), want};
    ssize_t got = write ? ::process_vm_writev(pid, &l, 1, &r, 1, 0) : ::process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == ESRCH)
        return Status(NEXAR_ERR_PEER_LOST, strprintf("process %d exited while its %s was %s", static_cast<int>(pid),
                                                     write ? "buffer" : "message", write ? "written" : "read"));
      return Status(NEXAR_ERR_SYSTEM, strprintf("%s %zu bytes %s process %d: %s", write ? "writing" : "reading", want,
                                                write ? "into" : "from", static_cast<int>(pid), std::strerror(errno)));
    }
    if (got == 0)
      return Status(NEXAR_ERR_SYSTEM, strprintf("%s process %d made no progress", write ? "writing into" : "reading from",
                                                static_cast<int>(pid)));
    done += static_cast<size_t>(got);
  }
  return Status::Ok();
}
}  // namespace

Status cma_read(pid_t pid, void* to, uint64_t from, size_t n, size_t chunk) {
  return cma_copy(pid, static_cast<uint8_t*>(to), from, n, chunk, false);
}

Status cma_write(pid_t pid, uint64_t to, const void* from, size_t n, size_t chunk) {
  // process_vm_writev only reads the local buffer.
  return cma_copy(pid, static_cast<uint8_t*>(const_cast<void*>(from)), to, n, chunk, true);
}

bool cma_probe(pid_t pid, uint64_t addr, uint64_t expected) {
  uint64_t v = 0;
  return cma_read(pid, &v, addr, sizeof(v), sizeof(v)).ok() && v == expected;
}

}  // namespace nexar::shm
