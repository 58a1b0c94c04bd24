// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// CallWordsCache: the words of a call come from the cache only for a call of the same shape.
#include <catch.hpp>

#include "comm/call_words.h"

using nexar::comm::CallWords;
using nexar::comm::CallWordsCache;
using nexar::comm::call_words;
using nexar::coll::CollArgs;
using nexar::coll::CollKind;

namespace {
bool same(const CallWords& a, const CallWords& b) {
  return a.descriptor == b.descriptor && a.desc.word == b.desc.word && a.desc.count == b.desc.count;
}
}  // namespace

TEST_CASE("call words: derived again for every change of shape", "[comm]") {
  CallWordsCache cache;
  CollArgs a{CollKind::ALLREDUCE, nullptr, nullptr, 4, NEXAR_FLOAT32, NEXAR_SUM};
  const CallWords first = cache.get(a, 4);
  CHECK(same(first, call_words(a, 4)));
  CHECK(same(cache.get(a, 4), first));
  const auto check_changed = [&](const char* what) {
    INFO(what);
    const CallWords w = cache.get(a, 4);
    CHECK(same(w, call_words(a, 4)));
    CHECK(w.descriptor != first.descriptor);
  };
  a.count = 5;
  check_changed("count");
  a.count = 4;
  a.dtype = NEXAR_INT32;
  check_changed("dtype");
  a.dtype = NEXAR_FLOAT32;
  a.op = NEXAR_MAX;
  check_changed("op");
  a.op = NEXAR_SUM;
  a.kind = CollKind::REDUCE;
  a.root = 2;
  check_changed("kind and root");
  a.root = 3;
  check_changed("root");
  // Gather's recorded bytes grow with the communicator; its words per size are derived alike.
  CollArgs g{CollKind::GATHER, nullptr, nullptr, 100, NEXAR_FLOAT64, NEXAR_SUM};
  CHECK(same(cache.get(g, 8), call_words(g, 8)));
}
