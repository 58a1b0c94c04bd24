// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/relay_drain.h"

#include <algorithm>
#include <deque>

namespace nexar::bootstrap {

int drain_rounds(const topology::Topology& t, int n) {
  std::vector<int> hops(static_cast<size_t>(n), -1);
  std::deque<int> queue = {0};
  hops[0] = 0;
  int far = 0;
  while (!queue.empty()) {
    const int r = queue.front();
    queue.pop_front();
    far = std::max(far, hops[static_cast<size_t>(r)]);
    for (int p : topology::neighbours(t, n, r)) {
      if (hops[static_cast<size_t>(p)] >= 0) continue;
      hops[static_cast<size_t>(p)] = hops[static_cast<size_t>(r)] + 1;
      queue.push_back(p);
    }
  }
  return 2 * far;
}

Status drain_relays(p2p::Engine& engine, const std::vector<int>& direct, int rounds, p2p::Clock::time_point deadline) {
  const uint8_t token = 1;
  std::vector<uint8_t> in(direct.size());
  for (int round = 0; round < rounds; ++round) {
    std::vector<p2p::RequestPtr> reqs;
    for (size_t i = 0; i < direct.size(); ++i) {
      p2p::RequestPtr r;
      NX_RETURN_IF_ERROR(engine.irecv(kDrainContext, direct[i], round, &in[i], 1, nullptr, &r));
      reqs.push_back(r);
    }
    for (int p : direct) {
      p2p::RequestPtr s;
      NX_RETURN_IF_ERROR(engine.isend(kDrainContext, p, round, &token, 1, 0, &s));
      reqs.push_back(s);
    }
    for (const p2p::RequestPtr& r : reqs) {
      Status st = r->wait_until(deadline);
      if (st.code() == NEXAR_ERR_TIMEOUT) {
        for (const p2p::RequestPtr& c : reqs) engine.cancel(c, Status(NEXAR_ERR_TIMEOUT, "closing the world"));
        return Status(NEXAR_ERR_TIMEOUT, "the ranks relaying messages did not all finish in time");
      }
      NX_RETURN_IF_ERROR(st);
    }
  }
  return Status::Ok();
}

}  // namespace nexar::bootstrap
