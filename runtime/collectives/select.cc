// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/select.h"

#include <cstring>
#include <limits>
#include <mutex>

#include "core/dtype.h"
#include "core/params.h"
#include "core/text.h"

namespace nexar::coll {
namespace {

std::string names_of(CollKind kind) {
  std::string out;
  for (const AlgoDesc& d : algo_table())
    if (d.kind == kind) out += std::string(out.empty() ? "" : ", ") + d.name;
  return out;
}

bool kind_from_name(const std::string& name, CollKind* out) {
  for (int k = 0; k < kCollKindCount; ++k)
    if (name == coll_kind_name(static_cast<CollKind>(k))) {
      *out = static_cast<CollKind>(k);
      return true;
    }
  return false;
}

}  // namespace

Status parse_algo_overrides(const std::string& spec, std::array<std::string, kCollKindCount>* out) {
  out->fill("");
  for (const std::string& piece : split(spec, ',')) {
    const std::string item = trim(piece);
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string::npos)
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    strprintf("NEXAR_ALGO item '%s' is not collective:algorithm (e.g. allreduce:ring)", item.c_str()));
    const std::string kname = trim(item.substr(0, colon)), aname = trim(item.substr(colon + 1));
    CollKind kind;
    if (!kind_from_name(kname, &kind)) {
      std::string kinds;
      for (int k = 0; k < kCollKindCount; ++k) kinds += std::string(k ? ", " : "") + coll_kind_name(static_cast<CollKind>(k));
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    strprintf("NEXAR_ALGO names unknown collective '%s' (known: %s)", kname.c_str(), kinds.c_str()));
    }
    if (!find_algo(kind, aname))
      return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("NEXAR_ALGO names unknown %s algorithm '%s' (known: %s)",
                                                          kname.c_str(), aname.c_str(), names_of(kind).c_str()));
    (*out)[static_cast<int>(kind)] = aname;
  }
  return Status::Ok();
}

namespace {
double sum_of(const size_t* counts, int p) {  // NULL (not validated: the table's tests) is 0
  double n = 0;
  if (!counts) return n;
  for (int i = 0; i < p; ++i) n += static_cast<double>(counts[i]);
  return n;
}
}  // namespace

double collective_bytes(const CollArgs& a, int p) {
  const double es = static_cast<double>(dtype_size(a.dtype));
  switch (kind_traits(a.kind).charge) {
    case Charge::NOTHING: return 0;
    case Charge::COUNT: return static_cast<double>(a.count) * es;
    // Gatherv and scatterv (arrays only a root reads): this rank's block p times.
    case Charge::RANKS: return static_cast<double>(a.count) * es * p;
    case Charge::BUCKETS: return static_cast<double>(bucket_elements(a)) * es;
    case Charge::RECVCOUNTS: return sum_of(a.recvcounts, p) * es;
    case Charge::SENDCOUNTS: return sum_of(a.sendcounts, p) * es;
  }
  return 0;
}

namespace {
// NEXAR_ALGO and the cost models, derived from the parameters once (per params generation)
// rather than on every collective: parsing them cost ~0.2 us of a 1 us allreduce.
struct SelectionInputs {
  uint64_t generation = ~uint64_t{0};
  Status forced_status;
  std::array<std::string, kCollKindCount> forced;
  CostModel network, shm;
};

Status selection_inputs(CollKind kind, CollTransport transport, std::string* forced, CostModel* m) {
  static std::mutex mu;
  static SelectionInputs cached;
  std::lock_guard<std::mutex> lock(mu);
  const uint64_t gen = params::generation();
  if (cached.generation != gen) {
    cached.forced = {};
    cached.forced_status = parse_algo_overrides(param::NEXAR_ALGO.get(), &cached.forced);
    cached.network = cost_model_from_params(CollTransport::NETWORK);
    cached.shm = cost_model_from_params(CollTransport::SHM);
    cached.generation = gen;
  }
  NX_RETURN_IF_ERROR(cached.forced_status);
  *forced = cached.forced[static_cast<int>(kind)];
  *m = transport == CollTransport::SHM ? cached.shm : cached.network;
  return Status::Ok();
}

// The model of the message algorithms (no slots) of p ranks moving n bytes: on one host
// they wait for crowded ranks like the slot rounds do, their messages (blocks of about
// n / p) above the eager limit are rendezvous, those up to it are copied twice between
// cores while every rank has one, and the receiving ranks move the bytes themselves, so
// no reduction hides behind a transfer (2 ranks, allreduce 16 MiB: ring_pipelined
// 15.6-32 ms against shm_direct's 4.7-5.3, 2026-11-27, load 6-10).
CostModel for_messages(CostModel m, CollTransport transport, int p, int cores, double n = 0) {
  if (cores > 0) m.cores = cores;  // agreed by the communicator's ranks
  if (transport != CollTransport::SHM) return m;
  m.reduce_overlaps_transfer = false;
  return m.crowded_messages(p).rendezvous_messages(n / p).eager_messages(n / p);
}
}  // namespace

CostModel message_cost_model(CollKind kind, CollTransport transport, int p, int cores) {
  std::string forced;
  CostModel m;
  (void)selection_inputs(kind, transport, &forced, &m);  // a bad NEXAR_ALGO leaves the model's defaults
  return for_messages(m, transport, p, cores);
}

const AlgoDesc* one_rank_algo(CollKind kind, ChoiceCache* cache) {
  const uint64_t gen = params::generation();
  if (cache->one_rank_generation != gen) {
    for (int k = 0; k < kCollKindCount; ++k) {
      const auto each = static_cast<CollKind>(k);
      std::string forced;
      CostModel m;
      const bool free = selection_inputs(each, CollTransport::NETWORK, &forced, &m).ok() && forced.empty();
      cache->one_rank[static_cast<size_t>(k)] = free ? find_algo(each, "one_rank") : nullptr;
    }
    cache->one_rank_generation = gen;
  }
  return cache->one_rank[static_cast<size_t>(kind)];
}

bool algo_forced(CollKind kind, const char* name) {
  std::string forced;
  CostModel m;
  return selection_inputs(kind, CollTransport::NETWORK, &forced, &m).ok() && forced == name;
}

namespace {
Status choose(const CollArgs& a, int p, CollTransport transport, Choice* out, const SlotCaps& caps,
              const RouteStretch& routes);
}  // namespace

Status select_algorithm(const CollArgs& a, int p, CollTransport transport, Choice* out, const SlotCaps& caps,
                        const RouteStretch& routes, ChoiceCache* cache) {
  // The kinds whose size is in arrays are never remembered (the key would not hold it).
  if (!cache || counts_in_arrays(a.kind))
    return choose(a, p, transport, out, caps, routes);
  RememberedChoice& r = cache->last[static_cast<size_t>(a.kind)];
  const uint64_t gen = params::generation();
  if (r.matches(gen, a, p, transport, caps)) {
    *out = r.choice;
    return Status::Ok();
  }
  NX_RETURN_IF_ERROR(choose(a, p, transport, out, caps, routes));
  r = RememberedChoice{gen, a.count, a.dtype, p, transport, caps, *out};
  return Status::Ok();
}

namespace {
Status choose(const CollArgs& a, int p, CollTransport transport, Choice* out, const SlotCaps& caps,
              const RouteStretch& routes) {
  std::string want;
  CostModel m;
  NX_RETURN_IF_ERROR(selection_inputs(a.kind, transport, &want, &m));
  if (caps.cores > 0) m.cores = caps.cores;  // agreed by the communicator's ranks
  const double n = collective_bytes(a, p);
  if (!want.empty()) {
    const AlgoDesc* d = find_algo(a.kind, want);
    if (const char* why = why_not_here(*d, p, a, caps))
      return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("NEXAR_ALGO forces %s:%s, which cannot run here: %s (%d ranks)",
                                                          coll_kind_name(a.kind), d->name, why, p));
    *out = Choice{d, algo_cost(*d, m, p, n, routes), true};
    return Status::Ok();
  }
  // The bytes the cost is asked for (not n): a count per rank first chooses at 0 bytes,
  // alike on every rank.
  const auto cost_of = [&](const AlgoDesc& d, double bytes) {
    return algo_cost(d, d.slots == SlotUse::NONE ? for_messages(m, transport, p, caps.cores, bytes) : m, p, bytes, routes);
  };
  // The cheapest applicable algorithm for `bytes` (only those of the wire protocol `wire`
  // if given).
  const auto cheapest = [&](double bytes, const char* wire) {
    Choice best{nullptr, std::numeric_limits<double>::infinity(), false};
    for (const AlgoDesc& d : algo_table()) {
      if (d.kind != a.kind || why_not_here(d, p, a, caps)) continue;
      if (wire && (!d.wire || std::strcmp(d.wire, wire) != 0)) continue;
      const double c = cost_of(d, bytes);
      if (!best.algo || c < best.cost_us) best = Choice{&d, c, false};  // ties: the table's order
    }
    return best;
  };
  Choice best;
  if (!is_vector_kind(a.kind)) {
    best = cheapest(n, nullptr);
  } else {
    // With a count per rank each rank charges its own bytes, and they differ between
    // ranks: the wire protocol is chosen from what every rank knows alike (p, the slots,
    // no bytes), and the bytes choose only among the algorithms of that protocol.
    best = cheapest(0, nullptr);
    if (best.algo && best.algo->wire) best = cheapest(n, best.algo->wire);
    else if (best.algo) best.cost_us = cost_of(*best.algo, n);
  }
  if (!best.algo)
    return Status(NEXAR_ERR_INTERNAL, strprintf("no %s algorithm applies with %d ranks", coll_kind_name(a.kind), p));
  *out = best;
  return Status::Ok();
}

}  // namespace

}  // namespace nexar::coll
