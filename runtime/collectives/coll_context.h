// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a collective algorithm sees of its communicator: its rank, its size, and
// point-to-point transfers of raw bytes on a message space private to collectives
// (traffic never mixes with user point-to-point). Algorithms are written only against
// this interface, so they run unchanged over QUIC, shared memory, or a mix.
//
// One collective runs at a time per communicator, in issue order, so an algorithm may
// use any tags it likes; messages between one pair with one tag arrive in order.
// Every call is bounded by the communicator's timeout and fails with the transport's
// error (NEXAR_ERR_PEER_LOST, NEXAR_ERR_TIMEOUT, NEXAR_ERR_MISMATCH, ...), which the
// algorithm returns at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/peer_pattern.h"
#include "core/status.h"

namespace nexar::coll {

// Which transport a communicator's collectives travel on; feeds the algorithm choice,
// so it must be the same on every rank of the communicator.
enum class CollTransport { NETWORK, SHM };

// A transfer in flight; completed by CollContext::wait. Opaque to algorithms.
struct Pending {
  void* impl = nullptr;
};

class ShmSlots;  // shm_coll/shm_slots.h

class CollContext {
 public:
  virtual ~CollContext() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // See CollTransport. Implementations with shared memory between all ranks override it.
  virtual CollTransport transport() const { return CollTransport::NETWORK; }
  // The communicator's shared-memory slots (shm_coll/shm_slots.h), nullptr where it has none.
  // Must be non-null on every rank or on none.
  virtual ShmSlots* shm_slots() { return nullptr; }
  // CPUs the ranks share, agreed by every member (0: unknown, each process counts its own).
  // Feeds the algorithm choice (CostModel::cores).
  virtual int cores() const { return 0; }
  // What relaying between ranks that hold no link costs each peer pattern (a sparse
  // NEXAR_TOPOLOGY, peer_pattern.h); alike on every member. Feeds the algorithm choice.
  virtual const RouteStretch& routes() const {
    static const RouteStretch direct;
    return direct;
  }
  // Told the algorithm chosen for the running collective (a static name), for its record.
  virtual void note_algorithm(const char* /*name*/) {}

  virtual Status isend(int peer, int tag, const void* buf, size_t bytes, Pending* out) = 0;
  // Receives exactly `bytes` bytes (a different length is NEXAR_ERR_MISMATCH).
  virtual Status irecv(int peer, int tag, void* buf, size_t bytes, Pending* out) = 0;
  virtual Status wait(Pending* p) = 0;

  // Blocking conveniences built on the three above.
  Status send(int peer, int tag, const void* buf, size_t bytes);
  Status recv(int peer, int tag, void* buf, size_t bytes);
  // Sends to dst and receives from src at the same time (deadlock-free in rings).
  Status sendrecv(int dst, int stag, const void* sbuf, size_t sbytes, int src, int rtag, void* rbuf, size_t rbytes);
};

}  // namespace nexar::coll
