// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The table of every collective algorithm: name, when it applies, its cost formula, and
// the function that runs it. Used by the selector, NEXAR_ALGO, benchmarks and nexar-info.
#pragma once

#include <string>
#include <vector>

#include "collectives/coll_context.h"
#include "collectives/collective.h"
#include "collectives/cost_model.h"
#include "collectives/peer_pattern.h"
#include "core/status.h"

namespace nexar::coll {

// What an algorithm needs of the communicator's shared-memory slots (shm_coll/shm_slots.h).
enum class SlotUse : unsigned char {
  NONE,    // nothing: runs anywhere
  INLINE,  // slots, and a payload of at most NEXAR_SHM_COLL_INLINE bytes
  DIRECT,  // slots, and reads of every member's memory (CMA)
};

// What a communicator offers the slot algorithms; has_slots false where it has none.
struct SlotCaps {
  bool has_slots = false;
  size_t inline_bytes = 0;
  bool can_read_all = false;
  int cores = 0;  // CollContext::cores(): replaces CostModel::cores when > 0
};

struct AlgoDesc {
  CollKind kind;
  const char* name;         // as in NEXAR_ALGO ("ring")
  const char* applies_doc;  // when it applies and what it is for
  const char* cost_doc;     // the cost formula, in words
  // nullptr when it can run with p ranks on these arguments, else why not.
  const char* (*why_not)(int p, const CollArgs& args);
  // Predicted microseconds for p ranks and n bytes (the collective's size as the caller
  // sees it: the vector for allreduce, size*count for allgather, ...).
  double (*cost)(const CostModel& m, int p, double n);
  Status (*run)(CollContext& ctx, const CollArgs& args);
  // Which ranks its messages pair up (peer_pattern.h): where the communicator relays
  // between non-neighbours, its cost is charged the pattern's stretch.
  PeerPattern peers = PeerPattern::kNone;
  // Whether ranks that disagree are sure to exchange a message (so one of them sees it) and
  // every rank's completion waits on messages that follow one from every other rank (so
  // all of them hear of it at the call). Trees and scans are not: ranks that disagree on a
  // root can wait on each other in a cycle, and a root or rank 0 may finish having heard
  // from nobody. select_and_run runs agreement_round before those.
  bool hears_all = true;
  // Slot algorithms apply only where the communicator has slots (or p == 1).
  SlotUse slots = SlotUse::NONE;
  // The kinds with a count per rank: the algorithm checks the counts pair by pair itself
  // (else select_and_run runs check_vector_counts first).
  bool checks_counts = false;
  // The kinds with a count per rank charge each rank its own bytes, which differ between
  // ranks: algorithms that name the same wire protocol here run against each other, and
  // only among them may the bytes decide (select.cc). nullptr: a protocol of its own.
  const char* wire = nullptr;
};

// nullptr when d can run with p ranks on these arguments and slots, else why not.
const char* why_not_here(const AlgoDesc& d, int p, const CollArgs& args, const SlotCaps& caps);

// The modelled cost of running d, its agreement round included; with routes, its latency
// and bandwidth terms stretched by its pattern's (peer_pattern.h).
double algo_cost(const AlgoDesc& d, const CostModel& m, int p, double n, const RouteStretch& routes = {});

const std::vector<AlgoDesc>& algo_table();
// nullptr when kind has no algorithm of that name.
const AlgoDesc* find_algo(CollKind kind, const std::string& name);
// The table as text, one line per algorithm (for nexar-info).
std::string describe_algorithms();

}  // namespace nexar::coll
