// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Cross-memory attach: copying from or into another process's memory with one system
// call and one copy (process_vm_readv, process_vm_writev). Permitted for a process of the same user unless Yama's
// ptrace_scope forbids it; whether it works is tested once per pair at connection.
// The shm link reads large payloads with it; the direct-read collectives
// (shm_coll/comm_slots.cc) read their members' buffers with it; broadcast shm_split's
// root writes into its readers' buffers.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "core/status.h"

namespace nexar::shm {

// Copies n bytes at remote address `from` in process pid into `to`, in pieces of at
// most chunk bytes. NEXAR_ERR_PEER_LOST if the process is gone, NEXAR_ERR_SYSTEM otherwise.
Status cma_read(pid_t pid, void* to, uint64_t from, size_t n, size_t chunk);

// Copies n bytes at `from` into remote address `to` in process pid, in pieces of at most
// chunk bytes. Errors as cma_read's.
Status cma_write(pid_t pid, uint64_t to, const void* from, size_t n, size_t chunk);

// Whether this process may read pid's memory: reads 8 bytes at addr and compares.
bool cma_probe(pid_t pid, uint64_t addr, uint64_t expected);

}  // namespace nexar::shm
