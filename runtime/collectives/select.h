// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Choosing an algorithm: NEXAR_ALGO when it names one for this collective, else the
// applicable algorithm with the lowest predicted cost (cost_model.h).
#pragma once

#include <array>
#include <string>

#include "collectives/algo_table.h"
#include "collectives/choice_cache.h"

namespace nexar::coll {

// Parses "allreduce:ring,broadcast:binomial" (spaces allowed around items). out[kind]
// gets the forced name or "" . An unknown collective or algorithm name, or an item
// without ':', is NEXAR_ERR_INVALID_ARGUMENT naming it and listing the valid names.
Status parse_algo_overrides(const std::string& spec, std::array<std::string, kCollKindCount>* out);

// The bytes the cost model charges for a call (the vector, or size * count for the
// gather / scatter family, or the sum of the buckets; with a count per rank: the sum of
// recvcounts, alltoallv's sum of sendcounts, gatherv's and scatterv's own count * size).
double collective_bytes(const CollArgs& args, int p);

// The model select_algorithm ranks the message algorithms (no slots) of p ranks with
// (cores: CollContext::cores(), 0 for the process's own count), for an algorithm that
// decides between its own phases by it.
CostModel message_cost_model(CollKind kind, CollTransport transport, int p, int cores);

// select_and_run (collective.h) reusing the communicator's remembered choices: the
// communicator layer's entry (its CollContext belongs to one communicator). chosen, if
// given, gets the choice (left alone when none could be made), for run_choice to run
// the same call again without choosing.
Status select_and_run(CollContext& ctx, const CollArgs& args, ChoiceCache* cache, Choice* chosen = nullptr);

// The rest of select_and_run once c is chosen: the choice's log line, the flight
// record's algorithm, the agreement round where c needs it, the run. c: the choice
// select_and_run made for a call with the same count, dtype and communicator, under the
// same parameters' generation and slots (what the choice reads).
Status run_choice(CollContext& ctx, const CollArgs& args, const Choice& c);

// On a communicator of one rank, the algorithm a call of kind runs without choosing:
// one_rank, unless NEXAR_ALGO forces another algorithm of kind or does not parse (then
// nullptr, and select_and_run chooses, or reports the malformed NEXAR_ALGO), and nullptr
// for the kinds one_rank does not serve. Remembered in cache per parameters' generation,
// so a call reads one atomic and one array entry.
const AlgoDesc* one_rank_algo(CollKind kind, ChoiceCache* cache);

// Whether NEXAR_ALGO forces algorithm `name` of kind.
bool algo_forced(CollKind kind, const char* name);

// A forced algorithm that cannot run with p ranks (or without the slots it needs, see
// SlotCaps) is NEXAR_ERR_INVALID_ARGUMENT. routes: the communicator's (CollContext::routes),
// which charge each algorithm its messages' relays. cache: the communicator's last choices,
// reused when everything else the choice reads is the same (nullptr: chosen anew); one
// cache serves one communicator, whose routes never change (they are not compared).
Status select_algorithm(const CollArgs& args, int p, CollTransport transport, Choice* out, const SlotCaps& caps = {},
                        const RouteStretch& routes = {}, ChoiceCache* cache = nullptr);

}  // namespace nexar::coll
