// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// python/nexar_torch/call.h: a deferred collective's call runs its blocking or non-blocking
// form, keeps what it captured alive exactly as long as the Call, and is built, moved and
// run without a heap allocation (one Call is made per torch collective).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "nexar_torch/call.h"

// Counts every allocation of the test binary (the checks below look at differences). A
// sanitizer's runtime owns new and delete (ASan reports a replaced pair as mismatched), so
// there the count stays 0 and only the other checks run.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NEXAR_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NEXAR_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef NEXAR_COUNT_ALLOCATIONS
#define NEXAR_COUNT_ALLOCATIONS 1
#endif

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

#if NEXAR_COUNT_ALLOCATIONS
void *operator new(std::size_t n) {
  ++g_allocations;
  if (void *p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
#endif

using nexar_torch::Call;

TEST_CASE("a Call runs the blocking form without a request and the non-blocking one with it") {
  int blocking = 0, started = 0;
  Call call = [&blocking, &started](nexar_request_t *req) {
    if (req == nullptr) {
      ++blocking;
      return NEXAR_SUCCESS;
    }
    ++started;
    return NEXAR_ERR_INVALID_ARGUMENT;
  };
  REQUIRE(static_cast<bool>(call));
  nexar_request_t req = nullptr;
  CHECK(call(nullptr) == NEXAR_SUCCESS);
  CHECK(call(&req) == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(blocking == 1);
  CHECK(started == 1);
  CHECK_FALSE(static_cast<bool>(Call()));
}

TEST_CASE("a Call holds an all-to-all's captures inline: no allocation to build, move or run it") {
  std::vector<size_t> counts(4, 8), displs(4, 0);
  std::vector<size_t> recv_counts(4, 8), recv_displs(4, 0);
  void *send = &counts, *recv = &displs;
  int runs = 0;
  // An all-to-all's call: four vectors and three pointers (collectives.cc, launch_alltoallv).
  auto fn = [send, recv, counts, displs, recv_counts, recv_displs, runs = &runs](nexar_request_t *) {
    ++*runs;
    return counts.size() == 4 && send != recv ? NEXAR_SUCCESS : NEXAR_ERR_INTERNAL;
  };
  STATIC_REQUIRE(sizeof(fn) <= Call::kCapacity);
  const long before = g_allocations.load();
  Call a = std::move(fn);
  Call b = std::move(a);
  Call c;
  c = std::move(b);
  CHECK(c(nullptr) == NEXAR_SUCCESS);
  CHECK(g_allocations.load() == before);
  CHECK(runs == 1);
  CHECK_FALSE(static_cast<bool>(a));
  CHECK_FALSE(static_cast<bool>(b));
}

TEST_CASE("a Call keeps its captures alive until it is destroyed or replaced, and drops them once") {
  auto held = std::make_shared<int>(7);
  std::weak_ptr<int> watch = held;
  {
    Call a = [held](nexar_request_t *) { return *held == 7 ? NEXAR_SUCCESS : NEXAR_ERR_INTERNAL; };
    held.reset();
    CHECK(watch.use_count() == 1);
    Call b = std::move(a);  // moved, not copied: still one owner
    CHECK(watch.use_count() == 1);
    CHECK(b(nullptr) == NEXAR_SUCCESS);
    b = [](nexar_request_t *) { return NEXAR_SUCCESS; };  // replacing drops the old captures
    CHECK(watch.expired());
  }
  auto other = std::make_shared<int>(1);
  std::weak_ptr<int> watch_other = other;
  {
    Call a = [other](nexar_request_t *) { return NEXAR_SUCCESS; };
    other.reset();
    CHECK(watch_other.use_count() == 1);
  }
  CHECK(watch_other.expired());
}
