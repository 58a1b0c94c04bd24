// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Generations of the world (nexar_comm_rebuild). A rebuild does not patch the old world:
// the survivors and the launcher's replacements bootstrap a new one, generation g, whose
// rendezvous keys start with "g<g>/" (fresh endpoint, engine, links and shared-memory
// inboxes; the old world stays valid until its communicator is destroyed).
//
// How the two sides meet, through the job's rendezvous:
//   replacement k of rank r   sets incarnation/<r>/<j> = k for j = 1..k, then waits for
//                             rebuild/<r>/<k> = g and joins generation g;
//   a survivor rebuilding     publishes g<g>/addr/<me> and waits for every other rank's
//     to generation g         entry; while rank p's is missing and p's process was
//                             incarnation i, it looks for incarnation/<p>/<i+1> and, found
//                             with value k, sets rebuild/<p>/<k> = g.
// A rank is in the new world through whichever process publishes its entry: itself when
// alive, its replacement when the launcher saw it fail (it replaces only ended processes).
// With neither within the timeout the rebuild fails with NEXAR_ERR_PEER_LOST naming the
// rank. The survivors' agreements around this (the failed set before, the outcome after)
// are in api/api_rebuild.cc.
#include "bootstrap/world.h"

#include <algorithm>
#include <cstdlib>

#include "core/log.h"
#include "core/params.h"
#include "rendezvous/entries.h"

namespace nexar::bootstrap {

namespace {

// How long one long poll of the rendezvous lasts while a survivor waits for a peer whose
// replacement has not announced itself yet.
constexpr auto kPollSlice = std::chrono::milliseconds(50);

std::chrono::milliseconds until(p2p::Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - p2p::Clock::now()));
}

}  // namespace

Status World::rebuild(World& old, double timeout_s, std::shared_ptr<World>* out) {
  LaunchInfo info = old.info_;
  info.incarnation = old.incarnations_[static_cast<size_t>(old.info_.rank)];
  std::shared_ptr<World> w(new World(info));
  // A retry after a failed rebuild moves on to a generation nobody has keys in.
  w->generation_ = old.last_rebuild_ = std::max(old.generation_, old.last_rebuild_) + 1;
  w->predecessors_ = old.incarnations_;
  NX_INFO(INIT, "rank %d: rebuilding the world as generation %d", info.rank, w->generation_);
  if (!info.singleton && info.world_size > 1) {
    const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    NX_RETURN_IF_ERROR(w->form(timeout).with_context(strprintf("rebuilding the world (generation %d)", w->generation_)));
  }
  NX_INFO(INIT, "rank %d: generation %d formed", info.rank, w->generation_);
  *out = std::move(w);
  return Status::Ok();
}

Status World::await_rebuild(bool* replacement) {
  const int r = info_.rank, k = info_.incarnation;
  const auto timeout = connect_timeout();
  // A gang restart (--max-restarts) also counts NEXAR_RESTART_COUNT, but in a fresh
  // rendezvous where nobody holds this rank yet: an ordinary start.
  std::string entry;
  bool found = false;
  NX_RETURN_IF_ERROR(rendezvous_->get("addr/" + std::to_string(r), &entry, &found, timeout));
  *replacement = found;
  if (!found) return Status::Ok();
  // Every entry up to k: survivors look for the one after the incarnation they knew, and an
  // incarnation that died before it was seen must not hide this one.
  for (int j = k; j >= 1; --j)
    NX_RETURN_IF_ERROR(rendezvous_->set(strprintf("incarnation/%d/%d", r, j), std::to_string(k), timeout));
  NX_INFO(INIT, "rank %d: replacement %d waits for the survivors to rebuild", r, k);
  const double wait_s = param::NEXAR_TIMEOUT.get();
  std::string g;
  NX_RETURN_IF_ERROR(rendezvous_->wait(strprintf("rebuild/%d/%d", r, k), &g,
                                       std::chrono::milliseconds(static_cast<int64_t>(wait_s * 1000)))
                         .with_context(strprintf("replacement %d of rank %d waiting for nexar_comm_rebuild", k, r)));
  char* end = nullptr;
  const long gen = std::strtol(g.c_str(), &end, 10);
  if (gen < 1 || !end || *end)
    return Status(NEXAR_ERR_PROTOCOL, strprintf("rebuild/%d/%d holds '%s', not a generation", r, k, g.c_str()));
  generation_ = static_cast<int>(gen);
  NX_INFO(INIT, "rank %d: replacement %d joins generation %d", r, k, generation_);
  return Status::Ok();
}

Status World::fetch_entries(std::vector<std::string>* entries, p2p::Clock::time_point deadline) {
  const size_t n = static_cast<size_t>(info_.world_size);
  entries->assign(n, "");
  if (!predecessors_.empty()) {
    for (int p = 0; p < info_.world_size; ++p)
      if (p != info_.rank) NX_RETURN_IF_ERROR(await_entry(p, &(*entries)[static_cast<size_t>(p)], deadline));
    return Status::Ok();
  }
  // One request for the whole table (N per world, not N^2: at 64 ranks on 2 cores the
  // N^2 single waits kept nexrun's server from answering for seconds).
  const std::string prefix = key("addr/");
  rendezvous::Entries got;
  NX_RETURN_IF_ERROR(rendezvous_->gather(prefix, n, &got, until(deadline)).with_context("waiting for the ranks' addresses"));
  std::vector<bool> seen(n);
  for (auto& [k, v] : got) {
    char* end = nullptr;
    const long p = std::strtol(k.c_str() + prefix.size(), &end, 10);
    if (k.size() == prefix.size() || *end || p < 0 || p >= info_.world_size)
      return Status(NEXAR_ERR_PROTOCOL, strprintf("the rendezvous holds '%s', not an address of a rank below %d",
                                                  k.c_str(), info_.world_size));
    seen[static_cast<size_t>(p)] = true;
    (*entries)[static_cast<size_t>(p)] = std::move(v);
  }
  std::string missing;
  int named = 0, absent = 0;
  for (size_t p = 0; p < n; ++p) {
    if (seen[p]) continue;
    if (named < 8) missing += strprintf("%s%zu", named++ ? ", " : "", p);
    ++absent;
  }
  if (absent == 0) return Status::Ok();
  return Status(NEXAR_ERR_TIMEOUT, strprintf("rank%s %s%s did not publish an address within the timeout (%d of %zu missing)",
                                             absent > 1 ? "s" : "", missing.c_str(), absent > named ? ", ..." : "", absent, n));
}

Status World::await_entry(int p, std::string* entry, p2p::Clock::time_point deadline) {
  const std::string name = key("addr/" + std::to_string(p));
  if (predecessors_.empty())  // not a survivor of a rebuild: nobody to call
    return rendezvous_->wait(name, entry, until(deadline)).with_context(strprintf("waiting for rank %d's address", p));
  const std::string next =
      strprintf("incarnation/%d/%d", p, predecessors_[static_cast<size_t>(p)] + 1);
  // Until the replacement is told, look for it every slice (it usually announced itself
  // before the survivors noticed the failure); then only its entry is awaited.
  bool told = false;
  for (;;) {
    if (!told) {
      bool found = false;
      std::string k;
      NX_RETURN_IF_ERROR(rendezvous_->get(next, &k, &found, connect_timeout()));
      if (found) {
        NX_INFO(INIT, "rank %d: replacement %s of rank %d joins generation %d", info_.rank, k.c_str(), p, generation_);
        NX_RETURN_IF_ERROR(rendezvous_->set(strprintf("rebuild/%d/%s", p, k.c_str()), std::to_string(generation_),
                                            connect_timeout()));
        told = true;
      }
    }
    Status st = rendezvous_->wait(name, entry, told ? until(deadline) : std::min(kPollSlice, until(deadline)));
    if (st.ok() || st.code() != NEXAR_ERR_TIMEOUT) return st;
    if (p2p::Clock::now() >= deadline) break;
  }
  return Status(NEXAR_ERR_PEER_LOST,
                strprintf("rank %d neither called nexar_comm_rebuild nor was replaced in time (no process joined "
                          "generation %d; replacements come from nexrun --respawn; without one, use shrink)",
                          p, generation_));
}

}  // namespace nexar::bootstrap
