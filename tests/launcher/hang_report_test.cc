// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The hang-report analyzer on hand-written records in trace::snapshot_json's format.
#include <catch2/catch.hpp>

#include "core/status.h"
#include "launcher/hang_report.h"
#include "launcher/json_value.h"

using namespace nexar;
using namespace nexar::launcher;

namespace {

std::string call(int seq, const char* state, const char* waiting_on = "[]") {
  return strprintf(R"({"seq":%d,"kind":"allreduce","count":1,"dtype":"float32","op":"sum","root":-1,"peer":-1,)"
                   R"("tag":-1,"bytes":4,"algo":"ring","state":"%s","waiting_on":%s,"t_start_us":1,"t_end_us":2,)"
                   R"("error":""})",
                   seq, state, waiting_on);
}

std::string record(int rank, int n, const char* current, const std::vector<std::string>& calls, int ctx = 0x2a) {
  std::string members, list;
  for (int i = 0; i < n; ++i) members += (i ? "," : "") + std::to_string(i);
  for (size_t i = 0; i < calls.size(); ++i) list += (i ? "," : "") + calls[i];
  return strprintf(R"({"rank":%d,"world_size":%d,"host":"h%d","pid":%d,"current":"%s","comms":[)"
                   R"({"ctx":%d,"rank":%d,"size":%d,"members":[%s],"calls":[%s]}]})",
                   rank, n, rank / 4, 100 + rank, current, ctx, rank, n, members.c_str(), list.c_str());
}

std::string first_line(const std::string& report) { return report.substr(0, report.find('\n')); }

}  // namespace

TEST_CASE("rank ranges are compact") {
  CHECK(rank_ranges({0, 1, 2, 4, 5, 6, 7}) == "0-2,4-7");
  CHECK(rank_ranges({3}) == "3");
  CHECK(rank_ranges({5, 1, 3, 2}) == "1-3,5");
  CHECK(rank_ranges({}) == "");
}

TEST_CASE("the rank that never entered the collective is named with what it last did") {
  std::vector<RankAnswer> answers;
  for (int r = 0; r < 8; ++r) {
    RankAnswer a{r, true, "", ""};
    if (r == 3)
      a.record = record(r, 8, "outside nexar", {call(5, "done"), call(6, "done")});
    else
      a.record = record(r, 8, "allreduce #7 on comm 0x2a", {call(6, "done"), call(7, "waiting", "[3]")});
    answers.push_back(a);
  }
  bool stuck = false;
  const std::string report = hang_report("rank 0: timeout", 8, answers, &stuck);
  INFO(report);
  CHECK(stuck);
  CHECK(first_line(report) ==
        "nexrun: hang report: ranks 0-2,4-7 wait in allreduce #7 on comm 0x2a (world); rank 3 never entered it "
        "(last completed: allreduce #6; now: outside nexar)");
  CHECK(report.find("nexrun:   rank 3 (h0 pid 103): now outside nexar; comm 0x2a (world): last completed allreduce #6") !=
        std::string::npos);
  CHECK(report.find("nexrun:   rank 5 (h1 pid 105): now allreduce #7 on comm 0x2a; comm 0x2a (world): in allreduce #7 "
                    "waiting [ring] 4 B waiting on rank 3, last completed allreduce #6") != std::string::npos);
}

TEST_CASE("ranks that did not answer or exited are named; all entered: who they wait on") {
  std::vector<RankAnswer> answers;
  answers.push_back({0, true, record(0, 4, "allreduce #2 on comm 0x0", {call(2, "waiting", "[2]")}, 0), ""});
  answers.push_back({1, true, record(1, 4, "allreduce #2 on comm 0x0", {call(2, "running", "[2]")}, 0), ""});
  answers.push_back({2, false, "", "did not answer within 3 s"});
  answers.push_back({3, false, "", "exited with status 1"});
  const std::string report = hang_report("SIGUSR1 to nexrun", 4, answers);
  INFO(report);
  CHECK(first_line(report) ==
        "nexrun: hang report: ranks 0-1 wait in allreduce #2 on comm 0x0 (world); they wait on rank 2; "
        "rank 2 did not answer within 3 s; rank 3 exited with status 1");
  CHECK(report.find("nexrun:   rank 2: did not answer within 3 s\n") != std::string::npos);
  CHECK(report.find("(report asked by SIGUSR1 to nexrun)") != std::string::npos);
}

TEST_CASE("no collective pending, and records that are not JSON") {
  std::vector<RankAnswer> answers;
  answers.push_back({0, true, record(0, 2, "outside nexar", {call(1, "done")}, 0), ""});
  answers.push_back({1, true, "{\"rank\":1,", ""});
  bool stuck = true;
  const std::string report = hang_report("status", 2, answers, &stuck);
  INFO(report);
  CHECK_FALSE(stuck);
  CHECK(first_line(report).rfind("nexrun: hang report: no rank is inside a collective; rank 1 sent a record that is "
                                 "not JSON (offset ",
                                 0) == 0);
}

TEST_CASE("the JSON reader takes the record format and rejects malformed text") {
  JsonValue v;
  std::string error;
  REQUIRE(parse_json(R"( {"a":[1,-2.5e1,true,null,"x\"\u00e9\n"],"b":{"c":"d"}} )", &v, &error));
  CHECK(v["a"].array.size() == 5);
  CHECK(v["a"].array[1].integer() == -25);
  CHECK(v["a"].array[2].boolean);
  CHECK(v["a"].array[3].is_null());
  CHECK(v["a"].array[4].text() == "x\"\xc3\xa9\n");
  CHECK(v["b"]["c"].text() == "d");
  CHECK(v["missing"].is_null());
  CHECK(v["b"].integer(7) == 7);
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "[1] x", "nul", "{\"a\":\"\\q\"}"}) {
    INFO(bad);
    CHECK_FALSE(parse_json(bad, &v, &error));
    CHECK(error.rfind("offset ", 0) == 0);
  }
  std::string deep(100, '[');
  CHECK_FALSE(parse_json(deep, &v, &error));
}

TEST_CASE("agree, shrink, revoke and rebuild are numbered apart: never taken for the pending collective") {
  std::string agree = call(0, "running");
  agree.replace(agree.find("allreduce"), 9, "agree");
  std::vector<RankAnswer> answers;
  answers.push_back({0, true, record(0, 2, "agree #0 on comm 0x0", {call(6, "done"), agree}, 0), ""});
  answers.push_back({1, true, record(1, 2, "outside nexar", {call(6, "done")}, 0), ""});
  const std::string report = hang_report("status", 2, answers);
  INFO(report);
  CHECK(first_line(report) == "nexrun: hang report: rank 0 wait in agree (below)");
  CHECK(report.find("now agree #0 on comm 0x0; comm 0x0 (world): in agree #0 running") != std::string::npos);
  CHECK(report.find("last completed allreduce #6") != std::string::npos);
}
