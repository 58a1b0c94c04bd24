// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Test-only fault injection, compiled in and off by default (NEXAR_FAULT_* parameters):
// received QUIC datagrams dropped, duplicated, corrupted or delayed, a rank that kills itself at a
// named point, a rank that stops itself (SIGSTOP) at a named point, and a system call that fails at a named point. Off, each hook costs one load of a flag set at first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace nexar::fault {

// What to do with one received datagram.
// DELAY: held back and delivered after the next datagram the socket delivers (reordered
// behind it; the peers' keep-alives bound how long it waits).
enum class Datagram { KEEP, DROP, DUPLICATE, CORRUPT, DELAY };

// NEXAR_FAULT_DATAGRAMS, parsed: a seeded dice per socket (repeatable for one seed).
class DatagramFaults {
 public:
  // nullptr when the parameter is empty (the socket then never asks). A malformed value
  // is reported once and ignored.
  static std::unique_ptr<DatagramFaults> from_params();
  DatagramFaults(double drop, double dup, double corrupt, double delay, uint64_t seed);
  Datagram roll();
  // Flips one byte of data (len > 0), chosen by the dice.
  void corrupt(uint8_t* data, size_t len);

 private:
  double next();  // uniform in [0, 1)
  double drop_, dup_, corrupt_, delay_;
  uint64_t state_;
};

// Kills this process (SIGKILL) when NEXAR_FAULT_KILL names this world rank and point and
// this is the Nth time it is reached. point: a static name ("collective", "agreement",
// "rendezvous").
void kill_point(const char* point);

// True when NEXAR_FAULT_FAIL names this world rank and point and this is the Nth time it
// is reached: the caller then fails as its system call would. Points: shm_map (mapping a
// peer's shared-memory segment, ENOMEM), shm_push (a rank's segment for pushed data,
// shm_coll/push_segment.h: its readers read its memory by CMA instead).
bool fail_point(const char* point);

// Stops this process (SIGSTOP; SIGCONT resumes it) when NEXAR_FAULT_STOP names rank and
// point and this is the Nth time it is reached: a test sees the process stopped at a known
// point (/proc/<pid>/stat state T). rank: the caller's rank in the job (nexar_init_rank's
// before NEXAR_RANK means anything). Points: uid_joined (nexar_init_rank counted itself
// joined, before it waits for the others), alltoallv_read (alltoallv shm_direct, after the
// arrival round, before it reads its peers' blocks).
void stop_point(const char* point, int rank);

}  // namespace nexar::fault
