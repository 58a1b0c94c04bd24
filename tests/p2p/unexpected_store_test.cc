// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The unexpected store alone (p2p/unexpected.h): what it holds drains in order and
// unchanged however it arrived, and the blocks of freed messages are reused, so messages
// that keep arriving before their receive do not fault their pages in again each time.
#include <catch.hpp>

#include <cstdint>
#include <vector>

#include "p2p/unexpected.h"

using nexar::p2p::UnexpectedMsg;
using nexar::p2p::UnexpectedStore;

namespace {

std::vector<uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + seed + (i >> 12));
  return v;
}

// Stores `bytes` of `data` as a message of header length `len`, in pieces of `piece`,
// then drains it; returns what the drain wrote.
std::vector<uint8_t> store_and_drain(UnexpectedStore& s, const std::vector<uint8_t>& data, size_t len, size_t piece) {
  UnexpectedMsg m;
  m.hdr.len = len;
  for (size_t off = 0; off < data.size(); off += piece)
    s.append(&m, data.data() + off, std::min(piece, data.size() - off));
  CHECK(s.bytes() == data.size());
  std::vector<uint8_t> out(data.size() + 16, 0xEE);
  size_t end = 0;
  const size_t n = s.drain(&m, [&](size_t off, const uint8_t* d, size_t k) {
    REQUIRE(off + k <= out.size());
    std::copy(d, d + k, out.begin() + static_cast<std::ptrdiff_t>(off));
    end = std::max(end, off + k);
  });
  CHECK(n == data.size());
  CHECK(s.bytes() == 0);
  out.resize(end);
  return out;
}

}  // namespace

TEST_CASE("unexpected messages drain in order and unchanged however they arrived") {
  UnexpectedStore s(64u << 20, 64u << 20);
  for (size_t len : {size_t{1}, size_t{64}, size_t{65}, size_t{4096}, size_t{512} << 10, UnexpectedStore::kWhole,
                     UnexpectedStore::kWhole + 1}) {
    for (size_t piece : {size_t{1000}, size_t{65536}, len}) {
      if (len > 100000 && piece == 1000) continue;
      const auto data = pattern(len, static_cast<unsigned>(len + piece));
      INFO("message of " << len << " bytes in pieces of " << piece);
      CHECK(store_and_drain(s, data, len, piece) == data);
    }
  }
  // A peer that sends more than its header said: every byte still drains, in order.
  const auto data = pattern(300000, 7);
  CHECK(store_and_drain(s, data, 200000, 65536) == data);
}

TEST_CASE("the block of a freed unexpected message serves the next one") {
  // Freed to glibc instead, such blocks go back to the kernel and every message faults its
  // pages in again: at np 2 over TCP a 1 MiB allreduce took 2.6-3.0 ms a call so, and
  // 0.52-0.60 ms with the pool (docs/collectives.md, "Scratch memory").
  const auto data = pattern(512 << 10, 3);
  auto first_piece_at = [&](UnexpectedStore& s) {
    UnexpectedMsg m;
    m.hdr.len = data.size();
    for (size_t off = 0; off < data.size(); off += 65536) s.append(&m, data.data() + off, 65536);
    uintptr_t at = 0;  // an address only: compared, never read through
    s.drain(&m, [&](size_t off, const uint8_t* d, size_t) {
      if (off == 0) at = reinterpret_cast<uintptr_t>(d);
    });
    return at;
  };
  UnexpectedStore kept(64u << 20, 64u << 20);
  const uintptr_t first = first_piece_at(kept);
  CHECK(kept.kept_bytes() == data.size());
  for (int i = 0; i < 5; ++i) CHECK(first_piece_at(kept) == first);
  CHECK(kept.kept_bytes() == data.size());
  UnexpectedStore none(64u << 20, 0);  // NEXAR_SCRATCH_KEEP=0 keeps nothing
  first_piece_at(none);
  CHECK(none.kept_bytes() == 0);
  UnexpectedStore small_limit(256u << 10, 64u << 20);  // keeps at most its unexpected limit
  first_piece_at(small_limit);
  CHECK(small_limit.kept_bytes() == 0);
}
