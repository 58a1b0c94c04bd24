// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// KvStore alone: values, the add counter, waiters completed by set/add or by expiry.
#include <catch.hpp>

#include <vector>

#include "rendezvous/entries.h"
#include "rendezvous/kv_store.h"

using nexar::rendezvous::decode_entries;
using nexar::rendezvous::encode_entries;
using nexar::rendezvous::Entries;
using nexar::rendezvous::KvStore;
using nexar::rendezvous::parse_int64;
using namespace std::chrono_literals;

namespace {
struct Outcome {
  int calls = 0;
  bool found = false;
  std::string value;
};
KvStore::WaitCallback record(Outcome* o) {
  return [o](bool found, const std::string& value) {
    ++o->calls;
    o->found = found;
    o->value = value;
  };
}
}  // namespace

TEST_CASE("kv: set then get, overwrite, absent key") {
  KvStore s;
  REQUIRE(s.get("a") == nullptr);
  s.set("a", "1");
  REQUIRE(s.get("a"));
  CHECK(*s.get("a") == "1");
  s.set("a", std::string("x\0y", 3));
  CHECK(*s.get("a") == std::string("x\0y", 3));
  s.set("empty", "");
  REQUIRE(s.get("empty"));
  CHECK(s.get("empty")->empty());
  CHECK(s.key_count() == 2);
}

TEST_CASE("kv: add counts from zero, accumulates, rejects non-numbers and overflow") {
  KvStore s;
  int64_t r = 0;
  REQUIRE(s.add("n", 5, &r).ok());
  CHECK(r == 5);
  REQUIRE(s.add("n", -7, &r).ok());
  CHECK(r == -2);
  CHECK(*s.get("n") == "-2");
  s.set("text", "abc");
  nexar::Status st = s.add("text", 1, &r);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("text") != std::string::npos);
  CHECK(*s.get("text") == "abc");
  s.set("big", "9223372036854775807");
  CHECK(s.add("big", 1, &r).code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(*s.get("big") == "9223372036854775807");
  REQUIRE(s.add("big", -1, &r).ok());
  CHECK(r == 9223372036854775806LL);
}

TEST_CASE("kv: a present key answers a wait at once") {
  KvStore s;
  s.set("k", "v");
  Outcome o;
  CHECK(s.wait("k", KvStore::Clock::now() + 1s, record(&o)) == 0);
  CHECK(o.calls == 1);
  CHECK(o.found);
  CHECK(o.value == "v");
  CHECK(s.waiter_count() == 0);
}

TEST_CASE("kv: set and add release every waiter of the key, only once") {
  KvStore s;
  auto far = KvStore::Clock::now() + 1h;
  Outcome a, b, other, counter;
  REQUIRE(s.wait("k", far, record(&a)) != 0);
  REQUIRE(s.wait("k", far, record(&b)) != 0);
  REQUIRE(s.wait("j", far, record(&other)) != 0);
  REQUIRE(s.wait("c", far, record(&counter)) != 0);
  CHECK(s.waiter_count() == 4);
  s.set("k", "val");
  CHECK(a.calls == 1);
  CHECK(b.calls == 1);
  CHECK(a.found);
  CHECK(b.value == "val");
  CHECK(other.calls == 0);
  s.set("k", "again");
  CHECK(a.calls == 1);
  int64_t r = 0;
  REQUIRE(s.add("c", 3, &r).ok());
  CHECK(counter.calls == 1);
  CHECK(counter.value == "3");
  CHECK(s.waiter_count() == 1);
  CHECK(s.expire(far) == 1);
  CHECK(other.calls == 1);
  CHECK_FALSE(other.found);
}

TEST_CASE("kv: expiry completes due waiters in deadline order and keeps the rest") {
  KvStore s;
  auto t0 = KvStore::Clock::now();
  Outcome early, late;
  REQUIRE(s.wait("x", t0 + 10ms, record(&early)) != 0);
  REQUIRE(s.wait("x", t0 + 50ms, record(&late)) != 0);
  REQUIRE(s.next_deadline());
  CHECK(*s.next_deadline() == t0 + 10ms);
  CHECK(s.expire(t0 + 5ms) == 0);
  CHECK(s.expire(t0 + 10ms) == 1);
  CHECK(early.calls == 1);
  CHECK_FALSE(early.found);
  CHECK(late.calls == 0);
  CHECK(*s.next_deadline() == t0 + 50ms);
  s.set("x", "now");
  CHECK(late.calls == 1);
  CHECK(late.found);
  CHECK_FALSE(s.next_deadline());
}

TEST_CASE("kv: a cancelled waiter never runs; unknown ids are ignored") {
  KvStore s;
  Outcome o;
  KvStore::WaitId id = s.wait("k", KvStore::Clock::now() + 1h, record(&o));
  s.cancel(id);
  s.cancel(id);
  s.cancel(12345);
  s.set("k", "v");
  CHECK(o.calls == 0);
  CHECK(s.waiter_count() == 0);
}

TEST_CASE("kv: a callback may change the store while waiters are released") {
  KvStore s;
  auto far = KvStore::Clock::now() + 1h;
  std::vector<std::string> seen;
  REQUIRE(s.wait("k", far, [&](bool, const std::string& v) {
    seen.push_back(v);
    s.set("k", "changed");  // re-entrant set: the second waiter sees the new value
  }) != 0);
  REQUIRE(s.wait("k", far, [&](bool, const std::string& v) { seen.push_back(v); }) != 0);
  s.set("k", "first");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == "first");
  CHECK(seen[1] == "changed");
}

namespace {
Entries decoded(const std::string& body) {
  Entries e;
  REQUIRE(decode_entries(body, &e).ok());
  return e;
}
}  // namespace

TEST_CASE("kv: a gather waits for its count of keys under the prefix, then gets them all") {
  KvStore s;
  auto far = KvStore::Clock::now() + 1h;
  s.set("addr/0", "a0");
  s.set("addrx", "not under the prefix");
  Outcome three, two, other;
  REQUIRE(s.gather("addr/", 3, far, record(&three)) != 0);
  CHECK(s.gather("addr/", 1, far, record(&other)) == 0);  // already there: at once
  CHECK(other.found);
  CHECK(decoded(other.value) == Entries{{"addr/0", "a0"}});
  REQUIRE(s.gather("addr/", 2, far, record(&two)) != 0);
  s.set("addr/0", "a0 again");  // not a new key: counts once
  CHECK(two.calls == 0);
  s.set("addr/10", std::string("x\n\0y", 4));
  CHECK(two.calls == 1);
  CHECK(two.found);
  CHECK(three.calls == 0);
  int64_t r = 0;
  REQUIRE(s.add("addr/2", 1, &r).ok());  // add makes a key too
  REQUIRE(three.calls == 1);
  CHECK(decoded(three.value) == Entries{{"addr/0", "a0 again"}, {"addr/10", std::string("x\n\0y", 4)}, {"addr/2", "1"}});
  CHECK(s.waiter_count() == 0);
}

TEST_CASE("kv: a gather that expires gets what is there; erase and cancel keep the count right") {
  KvStore s;
  auto t0 = KvStore::Clock::now();
  s.set("g/a", "1");
  Outcome late, cancelled;
  REQUIRE(s.gather("g/", 3, t0 + 10ms, record(&late)) != 0);
  KvStore::WaitId id = s.gather("g/", 3, t0 + 1h, record(&cancelled));
  s.set("g/b", "2");
  s.erase("g/b");
  s.erase("g/never");
  CHECK(s.expire(t0 + 10ms) == 1);
  REQUIRE(late.calls == 1);
  CHECK_FALSE(late.found);
  CHECK(decoded(late.value) == Entries{{"g/a", "1"}});
  s.set("g/c", "3");  // two keys: one short of the cancelled gather's three
  CHECK(cancelled.calls == 0);
  s.cancel(id);
  s.set("g/d", "4");
  CHECK(cancelled.calls == 0);
  CHECK(s.waiter_count() == 0);
}

TEST_CASE("kv: gathered entries round-trip; malformed bodies are named") {
  Entries in{{"k/1", ""}, {"k/2", std::string("\0 \n", 3)}, {"k/3", "v"}};
  CHECK(decoded(encode_entries(in)) == in);
  CHECK(decoded("").empty());
  Entries out;
  for (const char* bad : {"k 1\nv", "k 5\nv\n", "k x\nv\n", "k\nv\n", "k 1\nvX", "bad key 1\nv\n", "k -1\n\n",
                          "k 1v\n"}) {
    INFO(bad);
    nexar::Status st = decode_entries(bad, &out);
    CHECK(st.code() == NEXAR_ERR_PROTOCOL);
    CHECK(st.message().find("offset") != std::string::npos);
  }
}

TEST_CASE("kv: parse_int64 accepts only whole decimal int64 text") {
  int64_t v = 0;
  CHECK(parse_int64("0", &v));
  CHECK(v == 0);
  CHECK(parse_int64("-42", &v));
  CHECK(v == -42);
  CHECK(parse_int64("+7", &v));
  CHECK(v == 7);
  CHECK(parse_int64("-9223372036854775808", &v));
  CHECK(v == INT64_MIN);
  for (const char* bad : {"", "+", "-", "+-1", " 1", "1 ", "1x", "0x10", "9223372036854775808", "1.5", "--1"}) {
    INFO(bad);
    CHECK_FALSE(parse_int64(bad, &v));
  }
}
