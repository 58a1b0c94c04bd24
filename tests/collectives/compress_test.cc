// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The data side of the compressed allreduce (collectives/compress_select.h,
// compress_codec.h) for 1..6 simulated ranks: exact accounting (what a rank contributes
// plus what it keeps is exactly its v = send + residual, and the sum every rank gets plus
// every new residual is the sum of every v), top-k's choice, random-k's agreement, and
// refusal of contributions that disagree or repeat an index.
#include <catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "collectives/compress_codec.h"
#include "collectives/compress_select.h"
#include "core/dtype.h"

namespace nexar::coll::compress {
namespace {

// One rank's step: v, its chosen indices, its packed contribution.
struct RankStep {
  std::vector<float> v, residual;
  std::vector<uint32_t> idx;
  std::vector<uint8_t> packed;
};

RankStep step(const std::vector<float>& send, const std::vector<float>& residual, nexar_compress_method_t m,
              double ratio, uint64_t seed) {
  RankStep s;
  const size_t n = send.size(), k = contributed(ratio, n);
  s.v.resize(n);
  add_residual(send.data(), residual.data(), s.v.data(), n, NEXAR_FLOAT32);
  s.idx = m == NEXAR_COMPRESS_TOPK ? top_k(s.v.data(), n, NEXAR_FLOAT32, k) : random_k(seed, n, k);
  const Head h{kHeadMagic, static_cast<uint32_t>(m), NEXAR_FLOAT32, 0, n, k, m == NEXAR_COMPRESS_RANDOMK ? seed : 0};
  s.packed.resize(packed_bytes(m, k, NEXAR_FLOAT32));
  pack(h, s.idx, s.v.data(), NEXAR_FLOAT32, s.packed.data());
  s.residual.resize(n);
  leave_residual(s.v.data(), s.idx, s.residual.data(), n, NEXAR_FLOAT32);
  return s;
}

Head head_of(const RankStep& s) {
  Head h;
  std::memcpy(&h, s.packed.data(), sizeof h);
  return h;
}

TEST_CASE("contributed counts round up and stay in [1, count]", "[compress]") {
  CHECK(contributed(0.01, 1000) == 10);
  CHECK(contributed(0.01, 50) == 1);
  CHECK(contributed(0.1, 1001) == 101);
  CHECK(contributed(1.0, 7) == 7);
  CHECK(contributed(1e-12, 7) == 1);
  CHECK(contributed(0.5, 0) == 0);
}

TEST_CASE("top-k takes the largest magnitudes, ties to the lower index, NaN first", "[compress]") {
  const std::vector<float> v{1, -5, 3, 5, NAN, 0, -2};
  CHECK(top_k(v.data(), v.size(), NEXAR_FLOAT32, 1) == std::vector<uint32_t>{4});
  CHECK(top_k(v.data(), v.size(), NEXAR_FLOAT32, 3) == std::vector<uint32_t>{1, 3, 4});
  CHECK(top_k(v.data(), v.size(), NEXAR_FLOAT32, 4) == std::vector<uint32_t>{1, 2, 3, 4});
  const std::vector<double> d{0.5, -0.25, 0.75};
  CHECK(top_k(d.data(), d.size(), NEXAR_FLOAT64, 2) == std::vector<uint32_t>{0, 2});
  const std::vector<uint16_t> h{float_to_half(1), float_to_half(-3), float_to_half(2)};
  CHECK(top_k(h.data(), h.size(), NEXAR_FLOAT16, 1) == std::vector<uint32_t>{1});
  const std::vector<uint16_t> b{float_to_bf16(4), float_to_bf16(-3), float_to_bf16(2)};
  CHECK(top_k(b.data(), b.size(), NEXAR_BFLOAT16, 2) == std::vector<uint32_t>{0, 1});
}

TEST_CASE("random-k draws k distinct ascending indices, the same for the same seed", "[compress]") {
  for (size_t n : {1u, 7u, 64u, 1000u, 4097u}) {
    for (size_t k : {size_t{1}, n / 3 + 1, n}) {
      auto a = random_k(42, n, k);
      CHECK(a == random_k(42, n, k));
      REQUIRE(a.size() == k);
      CHECK(std::is_sorted(a.begin(), a.end()));
      CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());
      CHECK(a.back() < n);
    }
  }
  CHECK(random_k(1, 1000, 10) != random_k(2, 1000, 10));
  // Roughly uniform: every index of 100 drawn about 10000 * 10 / 100 times.
  std::vector<int> hits(100);
  for (uint64_t s = 0; s < 10000; ++s)
    for (uint32_t i : random_k(s, 100, 10)) hits[i]++;
  for (int h : hits) CHECK(std::abs(h - 1000) < 200);
}

TEST_CASE("add_residual keeps send's bits where the residual is zero", "[compress]") {
  const std::vector<float> s{-0.0f, 1.5f, 2.0f};
  const std::vector<float> r{0.0f, -0.0f, 0.25f};
  std::vector<float> v(3);
  add_residual(s.data(), r.data(), v.data(), 3, NEXAR_FLOAT32);
  CHECK(std::signbit(v[0]));
  CHECK(v[1] == 1.5f);
  CHECK(v[2] == 2.25f);
}

TEST_CASE("nothing lost or counted twice, for every world size, ratio and method, over several steps",
          "[compress]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> val(-1000, 1000);  // integers: every sum below is exact
  for (int p = 1; p <= 6; ++p) {
    for (double ratio : {0.01, 0.1, 0.37, 0.99}) {
      for (auto m : {NEXAR_COMPRESS_TOPK, NEXAR_COMPRESS_RANDOMK}) {
        const size_t n = 301;
        std::vector<std::vector<float>> residual(static_cast<size_t>(p), std::vector<float>(n, 0));
        for (uint64_t iter = 0; iter < 3; ++iter) {
          std::vector<RankStep> steps;
          std::vector<double> total_v(n, 0);
          for (int r = 0; r < p; ++r) {
            std::vector<float> send(n);
            for (float& x : send) x = static_cast<float>(val(rng));
            steps.push_back(step(send, residual[static_cast<size_t>(r)], m, ratio, 1000 + iter));
            const RankStep& s = steps.back();
            // This rank: contribution + new residual == v, element by element.
            std::vector<float> contrib(n, 0);
            for (uint32_t i : s.idx) contrib[i] = s.v[i];
            for (size_t i = 0; i < n; ++i) {
              REQUIRE(contrib[i] + s.residual[i] == s.v[i]);
              total_v[i] += s.v[i];
            }
            residual[static_cast<size_t>(r)] = s.residual;
          }
          const size_t per = steps[0].packed.size();
          std::vector<uint8_t> all;
          for (auto& s : steps) all.insert(all.end(), s.packed.begin(), s.packed.end());
          std::vector<std::vector<float>> got(static_cast<size_t>(p), std::vector<float>(n));
          for (int r = 0; r < p; ++r)
            REQUIRE(sum_contributions(head_of(steps[static_cast<size_t>(r)]), r, all.data(), p, per,
                                      steps[static_cast<size_t>(r)].idx, got[static_cast<size_t>(r)].data())
                        .ok());
          for (int r = 1; r < p; ++r) CHECK(got[static_cast<size_t>(r)] == got[0]);  // every rank alike
          for (size_t i = 0; i < n; ++i) {
            double kept = 0;
            for (int r = 0; r < p; ++r) kept += residual[static_cast<size_t>(r)][i];
            REQUIRE(got[0][i] + kept == total_v[i]);
          }
        }
      }
    }
  }
}

TEST_CASE("ranks that disagree, and repeated or outside indices, are refused", "[compress]") {
  const std::vector<float> send{1, 2, 3, 4, 5, 6, 7, 8}, zero(8, 0);
  std::vector<float> out(8);
  SECTION("different seeds") {
    RankStep a = step(send, zero, NEXAR_COMPRESS_RANDOMK, 0.5, 1), b = step(send, zero, NEXAR_COMPRESS_RANDOMK, 0.5, 2);
    std::vector<uint8_t> all = a.packed;
    all.insert(all.end(), b.packed.begin(), b.packed.end());
    Status st = sum_contributions(head_of(a), 0, all.data(), 2, a.packed.size(), a.idx, out.data());
    CHECK(st.code() == NEXAR_ERR_MISMATCH);
    CHECK(st.message().find("seed 2") != std::string::npos);
  }
  SECTION("a repeated index") {
    RankStep a = step(send, zero, NEXAR_COMPRESS_TOPK, 0.25, 0);
    std::vector<uint8_t> all = a.packed;
    uint32_t twice[2] = {7, 7};
    std::memcpy(all.data() + sizeof(Head), twice, sizeof twice);
    Status st = sum_contributions(head_of(a), 0, all.data(), 1, a.packed.size(), a.idx, out.data());
    CHECK(st.code() == NEXAR_ERR_PROTOCOL);
  }
  SECTION("an index outside the count") {
    RankStep a = step(send, zero, NEXAR_COMPRESS_TOPK, 0.125, 0);
    std::vector<uint8_t> all = a.packed;
    uint32_t bad = 8;
    std::memcpy(all.data() + sizeof(Head), &bad, sizeof bad);
    CHECK(sum_contributions(head_of(a), 0, all.data(), 1, a.packed.size(), a.idx, out.data()).code() ==
          NEXAR_ERR_PROTOCOL);
  }
}

}  // namespace
}  // namespace nexar::coll::compress
