// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Non-blocking collectives: several outstanding at once, mixed with blocking ones,
// complete as if issued in order (every rank runs them in issue order).
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "e2e_probe.h"

namespace e2e {
namespace {

// Four collectives chained on one buffer: the result depends on the order they ran in.
void chain_in_order() {
  const size_t n = 37;
  const uint32_t p = static_cast<uint32_t>(g_size), r = static_cast<uint32_t>(g_rank);
  std::vector<uint32_t> a(n), other(n, 5);
  for (size_t i = 0; i < n; ++i) a[i] = r + static_cast<uint32_t>(i) + 1;
  nexar_request_t reqs[4];
  E2E_OK(nexar_iallreduce(a.data(), a.data(), n, NEXAR_UINT32, NEXAR_SUM, g_world, &reqs[0]));  // S
  E2E_OK(nexar_allreduce(other.data(), other.data(), n, NEXAR_UINT32, NEXAR_MAX, g_world));       // blocking, between
  E2E_OK(nexar_iscan(a.data(), a.data(), n, NEXAR_UINT32, NEXAR_SUM, g_world, &reqs[1]));         // (r+1) S
  E2E_OK(nexar_ibroadcast(a.data(), n, NEXAR_UINT32, g_size - 1, g_world, &reqs[2]));             // p S
  E2E_OK(nexar_iexscan(a.data(), a.data(), n, NEXAR_UINT32, NEXAR_SUM, g_world, &reqs[3]));       // r p S
  E2E_OK(nexar_waitall(4, reqs));
  for (size_t i = 0; i < n; ++i) {
    const uint32_t s = p * (p + 1) / 2 + p * static_cast<uint32_t>(i);  // sum over ranks of (rank + i + 1)
    E2E_CHECK(a[i] == r * p * s, "element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", want " +
                                     std::to_string(r * p * s) + " (collectives ran out of order?)");
    E2E_CHECK(other[i] == 5, "blocking allreduce in between");
  }
}

// Every kind outstanding at once, every fourth call blocking; completed by polling with
// nexar_test in reverse order, then nexar_wait / nexar_waitall.
void many_outstanding() {
  const Kind kinds[] = {Kind::ALLREDUCE, Kind::BROADCAST, Kind::REDUCE, Kind::ALLGATHER, Kind::REDUCE_SCATTER,
                        Kind::GATHER,    Kind::SCATTER,   Kind::ALLTOALL, Kind::SCAN,    Kind::EXSCAN,
                        Kind::BUCKETED,  Kind::BARRIER};
  std::vector<std::unique_ptr<Prepared>> preps;
  std::vector<nexar_request_t> reqs;
  for (uint32_t j = 0; j < 30; ++j) {
    Case c;
    c.kind = kinds[j % 12];
    c.count = j % 7 == 3 ? 70000 + j : 5 + j;  // some above the eager limit
    c.dtype = kDtypes[(j * 7) % 10];
    c.op = kOps[j % 5];
    c.root = static_cast<int>(j) % g_size;
    c.seed = 500 + j;
    preps.push_back(std::make_unique<Prepared>(c, g_rank, g_size));
    if (j % 4 == 3) {  // blocking: runs after everything issued before it
      E2E_OK(preps.back()->start(g_world, nullptr));
      const std::string err = preps.back()->verify();
      E2E_CHECK(err.empty(), "blocking call amid non-blocking ones: " + err);
      reqs.push_back(nullptr);
    } else {
      nexar_request_t req = nullptr;
      E2E_OK(preps.back()->start(g_world, &req));
      E2E_CHECK(req != nullptr, c.label() + ": no request");
      reqs.push_back(req);
    }
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  size_t left = 0;
  for (nexar_request_t r : reqs) left += r != nullptr;
  while (left > 0) {
    for (size_t k = reqs.size(); k-- > 0;) {
      if (!reqs[k]) continue;
      int done = 0;
      const nexar_result_t t = nexar_test(reqs[k], &done);
      if (t == NEXAR_IN_PROGRESS) continue;
      E2E_CHECK(t == NEXAR_SUCCESS && done == 1, preps[k]->c().label() + ": test returned " + nexar_result_string(t));
      reqs[k] = nullptr;  // freed by the successful test
      --left;
    }
    E2E_CHECK(std::chrono::steady_clock::now() < until, "outstanding collectives not done within 60 s");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (auto& prep : preps) {
    const std::string err = prep->verify();
    E2E_CHECK(err.empty(), err);
  }
}

}  // namespace

void scenario_nonblocking() {
  chain_in_order();
  many_outstanding();
  nexar_request_t r;
  E2E_OK(nexar_ibarrier(g_world, &r));
  E2E_OK(nexar_wait(r));
}

}  // namespace e2e
