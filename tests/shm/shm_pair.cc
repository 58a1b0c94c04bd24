// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "shm/shm_pair.h"

#include <thread>

namespace nexar::shm::test {

p2p::Clock::time_point in_seconds(double s) {
  return p2p::Clock::now() + std::chrono::microseconds(static_cast<int64_t>(s * 1e6));
}

ShmPair::ShmPair(const PairOptions& opt) {
  HubConfig cfg;
  cfg.local_ranks = {0, 1};
  cfg.tokens = {Token::make("test", 0), Token::make("test", 1)};
  names_ = {cfg.tokens[0].name, cfg.tokens[1].name};
  cfg.ring_bytes = opt.ring_bytes;
  cfg.eager_limit = opt.eager_limit;
  cfg.allow_cma = opt.cma;
  for (int r = 0; r < 2; ++r) {
    engines_.push_back(std::make_unique<p2p::Engine>(r, 2, opt.unexpected_limit));
    engines_.back()->register_context(kCtx, {0, 1});
    cfg.rank = r;
    hubs_.emplace_back();
    status_ = ShmHub::create(cfg, engines_.back().get(), &hubs_.back());
    if (!status_.ok()) return;
  }
  Status st[2];
  std::thread t([&] { st[1] = hubs_[1]->connect(in_seconds(10)); });
  st[0] = hubs_[0]->connect(in_seconds(10));
  t.join();
  status_ = !st[0].ok() ? st[0] : st[1];
  if (!status_.ok()) return;
  for (int r = 0; r < 2; ++r) {
    engines_[static_cast<size_t>(r)]->set_link(1 - r, hubs_[static_cast<size_t>(r)]->link(1 - r));
    engines_[static_cast<size_t>(r)]->waiter().configure(hubs_[static_cast<size_t>(r)]->user_bell(),
                                                         hubs_[static_cast<size_t>(r)].get(), 20000,
                                                         p2p::SpinYield::kNever);
  }
}

ShmPair::~ShmPair() {
  for (size_t r = 0; r < engines_.size(); ++r) engines_[r]->waiter().reset();
  hubs_.clear();
}

Status ShmPair::send(int from, int tag, const void* buf, size_t n) {
  p2p::RequestPtr req;
  NX_RETURN_IF_ERROR(engine(from).isend(kCtx, 1 - from, tag, buf, n, 0, &req));
  Status st = req->wait_until(in_seconds(20));
  if (st.code() == NEXAR_ERR_TIMEOUT) engine(from).cancel(req, st);
  return st;
}

Status ShmPair::recv(int to, int src, int tag, void* buf, size_t cap, size_t* got) {
  p2p::RequestPtr req;
  NX_RETURN_IF_ERROR(engine(to).irecv(kCtx, src, tag, buf, cap, nullptr, &req));
  Status st = req->wait_until(in_seconds(20));
  if (st.code() == NEXAR_ERR_TIMEOUT) engine(to).cancel(req, st);
  if (got) *got = req->bytes;
  return st;
}

}  // namespace nexar::shm::test
