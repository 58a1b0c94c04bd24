// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Parsing and validation of rendezvous requests, and the request line a client builds.
#include <catch.hpp>

#include "rendezvous/request.h"

using namespace nexar::rendezvous;

namespace {
nexar::Status parse(const char* method, const std::string& path, const std::string& body = "",
                    Request* out = nullptr, bool overflow = false) {
  Request r;
  return parse_request(method, path, body, overflow, out ? out : &r);
}
}  // namespace

TEST_CASE("request: the six resources parse") {
  Request r;
  REQUIRE(parse("PUT", "/kv/job/rank.0_addr-x", "v", &r).ok());
  CHECK(r.op == Op::kSet);
  CHECK(r.key == "job/rank.0_addr-x");
  CHECK(r.value == "v");
  REQUIRE(parse("GET", "/kv/a", "", &r).ok());
  CHECK(r.op == Op::kGet);
  REQUIRE(parse("GET", "/kv/a?wait=1500", "", &r).ok());
  CHECK(r.op == Op::kWait);
  CHECK(r.wait.count() == 1500);
  REQUIRE(parse("GET", "/kv/a?wait=0", "", &r).ok());
  CHECK(r.wait.count() == 0);
  REQUIRE(parse("POST", "/add/ctr", "-3", &r).ok());
  CHECK(r.op == Op::kAdd);
  CHECK(r.delta == -3);
  REQUIRE(parse("GET", "/status", "", &r).ok());
  CHECK(r.op == Op::kStatus);
  REQUIRE(parse("PUT", "/kv/e", "", &r).ok());
  CHECK(r.value.empty());
  REQUIRE(parse("GET", "/all/g1/addr/?count=64&wait=900", "", &r).ok());
  CHECK(r.op == Op::kGather);
  CHECK(r.key == "g1/addr/");
  CHECK(r.count == 64);
  CHECK(r.wait.count() == 900);
}

TEST_CASE("request: a gather needs GET, a valid prefix, count then wait") {
  for (const char* bad : {"/all/p", "/all/p?wait=5", "/all/p?count=5", "/all/p?wait=5&count=5", "/all/p?count=-1&wait=5",
                          "/all/p?count=x&wait=5", "/all/p?count=&wait=5", "/all/p?count=99999999&wait=5",
                          "/all/p?count=1&wait=x", "/all/?count=1&wait=5", "/all/a b?count=1&wait=5"}) {
    INFO(bad);
    nexar::Status st = parse("GET", bad);
    CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(st.message().find('\n') == std::string::npos);
  }
  CHECK(parse("PUT", "/all/p?count=1&wait=5", "x").message().find("PUT") != std::string::npos);
  CHECK(parse("GET", "/all/p?count=1&wait=5", "x").code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("request: keys are checked for charset and length") {
  CHECK(parse("GET", "/kv/" + std::string(kMaxKeyLength, 'k')).ok());
  nexar::Status st = parse("GET", "/kv/" + std::string(kMaxKeyLength + 1, 'k'));
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("257") != std::string::npos);
  CHECK(parse("GET", "/kv/").code() == NEXAR_ERR_INVALID_ARGUMENT);
  for (const char* bad : {"/kv/a b", "/kv/a%20b", "/kv/a\nb", "/kv/\xff", "/kv/a:b", "/kv/a#b", "/add/a*b"}) {
    INFO(bad);
    nexar::Status s = parse(std::string(bad).rfind("/add", 0) == 0 ? "POST" : "GET", bad, "1");
    CHECK(s.code() == NEXAR_ERR_INVALID_ARGUMENT);
    CHECK(s.message().find('\n') == std::string::npos);
  }
  std::string why;
  CHECK(valid_key("a/b.c-d_e", &why));
  CHECK_FALSE(valid_key("a b", &why));
  CHECK(why.find("offset 1") != std::string::npos);
}

TEST_CASE("request: methods, paths, queries and bodies are validated") {
  CHECK(parse("DELETE", "/kv/a").message().find("DELETE") != std::string::npos);
  CHECK(parse("POST", "/kv/a", "x").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("GET", "/add/a").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("PUT", "/status", "x").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("GET", "/").message().find("unknown path") != std::string::npos);
  CHECK(parse("GET", "").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("GET", "/kv").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("GET", "/status/x").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("GET", "/kv/a", "body").code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(parse("PUT", "/kv/a?wait=1", "x").code() == NEXAR_ERR_INVALID_ARGUMENT);
  for (const char* q : {"?wait=", "?wait=-1", "?wait=+5", "?wait=1x", "?wait=99999999999999999999999",
                        "?timeout=5", "?", "?wait=1&x=2", "?wait=86400001"}) {
    INFO(q);
    CHECK(parse("GET", std::string("/kv/a") + q).code() == NEXAR_ERR_INVALID_ARGUMENT);
  }
  CHECK(parse("GET", "/kv/a?wait=86400000").ok());
  for (const char* d : {"", "x", "1.5", " 1", "99999999999999999999", "0x1"}) {
    INFO(d);
    CHECK(parse("POST", "/add/a", d).code() == NEXAR_ERR_INVALID_ARGUMENT);
  }
}

TEST_CASE("request: values up to 1 MiB, larger ones are refused") {
  Request r;
  std::string max(kMaxValueSize, 'v');
  REQUIRE(parse("PUT", "/kv/big", max, &r).ok());
  CHECK(r.value.size() == kMaxValueSize);
  nexar::Status st = parse("PUT", "/kv/big", max, &r, /*overflow=*/true);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("1048576") != std::string::npos);
}

TEST_CASE("request: bad_request is one line and echoes no control bytes") {
  nexar::Status st = parse("G\x01T\n", "/kv/a");
  Response r = bad_request(st.message());
  CHECK(r.status == 400);
  REQUIRE(!r.body.empty());
  CHECK(r.body.back() == '\n');
  CHECK(r.body.find('\n') == r.body.size() - 1);
  CHECK(r.body.find('\x01') == std::string::npos);
}

TEST_CASE("request: request_line round-trips through parse_request") {
  for (Op op : {Op::kSet, Op::kGet, Op::kWait, Op::kAdd, Op::kStatus, Op::kGather}) {
    Request in;
    in.op = op;
    in.key = op == Op::kStatus ? "" : "some/key-1";
    in.value = op == Op::kSet ? "val" : "";
    in.delta = 17;
    in.wait = std::chrono::milliseconds(250);
    in.count = 12;
    RequestLine line = request_line(in);
    std::string body = op == Op::kSet ? in.value : op == Op::kAdd ? "17" : "";
    Request out;
    INFO(op_name(op));
    REQUIRE(parse_request(line.method, line.path, body, false, &out).ok());
    CHECK(out.op == op);
    CHECK(out.key == in.key);
    if (op == Op::kWait || op == Op::kGather) CHECK(out.wait == in.wait);
    if (op == Op::kGather) CHECK(out.count == 12);
    if (op == Op::kAdd) CHECK(out.delta == 17);
    if (op == Op::kSet) CHECK(out.value == "val");
  }
}
