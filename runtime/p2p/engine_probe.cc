// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Engine: probes, which look through the unexpected store without receiving.
#include <algorithm>

#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace nexar::p2p {

using detail::matches;

bool Engine::find_unexpected_locked(const Context& c, int src, int tag, Probed* out) const {
  for (const UnexpectedMsg* m : c.unexpected) {
    if (!matches(src, tag, m->src, m->hdr.tag)) continue;
    *out = Probed{m->src, m->hdr.tag, m->hdr.len};
    return true;
  }
  return false;
}

Status Engine::iprobe(uint32_t ctx, int src, int tag, bool* found, Probed* out) {
  std::lock_guard<std::mutex> lock(mu_);
  const Context& c = context_locked(ctx);
  *found = false;
  if (!c.failed.ok()) return c.failed;
  if (find_unexpected_locked(c, src, tag, out)) {
    *found = true;
    return Status::Ok();
  }
  if (src >= 0 && !lost_[static_cast<size_t>(src)].ok()) return lost_[static_cast<size_t>(src)];
  return Status::Ok();
}

Status Engine::probe(uint32_t ctx, int src, int tag, Clock::time_point deadline, Probed* out) {
  std::vector<char> was_lost(static_cast<size_t>(size_));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t r = 0; r < was_lost.size(); ++r) was_lost[r] = !lost_[r].ok();
  }
  // A member of ctx lost since the probe began (ANY_SOURCE): the status it was lost with.
  auto newly_lost = [&]() -> Status {
    std::lock_guard<std::mutex> lock(mu_);
    const Context& c = context_locked(ctx);
    for (size_t r = 0; r < was_lost.size(); ++r) {
      if (was_lost[r] || lost_[r].ok()) continue;
      if (c.members.empty() || std::find(c.members.begin(), c.members.end(), static_cast<int>(r)) != c.members.end())
        return lost_[r];
    }
    return Status::Ok();
  };
  std::vector<transport::PeerLink*> from;
  {
    std::lock_guard<std::mutex> lock(mu_);
    from = expect_links_locked(context_locked(ctx), src);
  }
  for (transport::PeerLink* l : from) l->expect();
  probers_.fetch_add(1, std::memory_order_acq_rel);
  Status st;
  bool found = false;
  const bool over = waiter_.wait(
      [&] {
        st = iprobe(ctx, src, tag, &found, out);
        if (st.ok() && !found && src == NEXAR_ANY_SOURCE) st = newly_lost();
        return found || !st.ok();
      },
      deadline);
  probers_.fetch_sub(1, std::memory_order_acq_rel);
  if (!over) return Status(NEXAR_ERR_TIMEOUT, "no matching message arrived in time");
  return st;
}

}  // namespace nexar::p2p
