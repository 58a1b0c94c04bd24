// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/collective.h"

#include <atomic>

#include "collectives/algorithms.h"
#include "collectives/choice_log.h"
#include "collectives/one_rank.h"
#include "collectives/select.h"
#include "shm_coll/shm_slots.h"
#include "collectives/vcount_check.h"
#include "core/dtype.h"
#include "core/log.h"

namespace nexar::coll {

std::atomic<const AlgoDesc*> g_last_logged[kCollKindCount];

namespace {

void write_choice(const CollArgs& a, int p, CollTransport t, const Choice& c) {
  const char* why = c.forced ? "forced by NEXAR_ALGO" : "lowest modelled cost";
  NX_TRACE(COLL, "%s: %.0f bytes, %d ranks, %s -> %s (%.1f us, %s)", coll_kind_name(a.kind), collective_bytes(a, p), p,
           coll_transport_name(t), c.algo->name, c.cost_us, why);
  // A load first: the same choice again (the usual case) writes nothing shared.
  std::atomic<const AlgoDesc*>& last = g_last_logged[static_cast<int>(a.kind)];
  if (last.load(std::memory_order_relaxed) != c.algo && last.exchange(c.algo) != c.algo)
    NX_INFO(COLL, "%s: %.0f bytes, %d ranks, %s -> %s (%.1f us, %s)", coll_kind_name(a.kind), collective_bytes(a, p), p,
            coll_transport_name(t), c.algo->name, c.cost_us, why);
}

// The usual case, the choice last logged again without TRACE, is two loads here; the rest
// (write_choice) is out of line.
inline void log_choice(const CollArgs& a, int p, CollTransport t, const Choice& c) {
  if (!choice_logged(a.kind, c.algo)) write_choice(a, p, t, c);
}

}  // namespace

uint64_t bucket_elements(const CollArgs& a) {
  uint64_t n = 0;
  for (size_t i = 0; i < a.nbufs; ++i) n += a.counts[i];
  return n;
}

Status select_and_run(CollContext& ctx, const CollArgs& args) { return select_and_run(ctx, args, nullptr); }

Status run_one_rank(const AlgoDesc& d, const CollArgs& args, CollTransport transport) {
  log_choice(args, 1, transport, Choice{&d, 0, false});
  return one_rank_copy(args);
}

Status select_and_run(CollContext& ctx, const CollArgs& args, ChoiceCache* cache, Choice* chosen) {
  const int p = ctx.size();
  SlotCaps caps;
  if (const ShmSlots* s = ctx.shm_slots()) caps = SlotCaps{true, s->inline_bytes(), s->can_read_all()};
  caps.cores = ctx.cores();
  Choice c;
  if (Status st = select_algorithm(args, p, ctx.transport(), &c, caps, ctx.routes(), cache); !st.ok()) return st;
  if (chosen) *chosen = c;
  return run_choice(ctx, args, c);
}

Status run_choice(CollContext& ctx, const CollArgs& args, const Choice& c) {
  const int p = ctx.size();
  log_choice(args, p, ctx.transport(), c);
  ctx.note_algorithm(c.algo->name);
  // Every return below returns st, so it is built in the caller's place (named return
  // value): no Status is moved on the way out of a call that succeeded.
  Status st;
  if (!c.algo->hears_all && p != 1) st = agreement_round(ctx);
  if (st.ok() && is_vector_kind(args.kind) && p > 1 && !c.algo->checks_counts) st = check_vector_counts(ctx, args);
  if (st.ok()) st = c.algo->run(ctx, args);
  if (!st.ok()) st = st.with_context(strprintf("%s (%s)", coll_kind_name(args.kind), c.algo->name));
  return st;
}

}  // namespace nexar::coll
