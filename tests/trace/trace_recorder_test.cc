// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The flight recorder on its own: ring wrap, call states, queued collectives, point to
// point numbering, the off switch, snapshots taken while a thread records, and the JSON
// of a snapshot and of a trace file (parsed by python3's json module).
#include <catch.hpp>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/params.h"
#include "trace/comm_recorder.h"
#include "trace/flight_recorder.h"
#include "trace/trace_log.h"

using namespace nexar::trace;

namespace {

void set_env(const char* name, const char* value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  nexar::params::reload();
}

std::string temp_path(const char* what) {
  return std::string("/tmp/nexar-trace-test-") + std::to_string(getpid()) + "-" + what;
}

// Values of Python expressions over the JSON document in text, one per line.
std::vector<std::string> json_query(const std::string& text, const std::vector<std::string>& exprs) {
  const std::string path = temp_path("doc.json");
  std::ofstream(path) << text;
  std::string cmd = std::string("python3 ") + JSON_CHECK + " " + path;
  for (const std::string& e : exprs) cmd += " \"" + e + "\"";
  std::vector<std::string> out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    out.push_back(s);
  }
  const int rc = pclose(p);
  std::remove(path.c_str());
  INFO(text.substr(0, 2000));
  REQUIRE(rc == 0);
  REQUIRE(out.size() == exprs.size());
  return out;
}

CallDesc allreduce() {
  CallDesc d;
  d.word = pack_call(CallKind::kAllreduce, NEXAR_FLOAT32, NEXAR_SUM, -1);
  d.count = 4;
  return d;
}

CallDesc p2p(CallKind kind, int peer, int tag, uint64_t count) {
  CallDesc d;
  d.word = pack_call(kind, NEXAR_FLOAT64, -1, peer);
  d.count = count;
  d.tag = tag;
  return d;
}

}  // namespace

TEST_CASE("the collective ring keeps the last N calls, oldest first") {
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", "4");
  set_process(1, 3);
  CommRecorder rec(42, {0, 1, 2}, 1);
  for (uint64_t s = 0; s < 10; ++s) {
    CallRecord* e = rec.begin_collective(allreduce(), s);
    REQUIRE(e);
    CommRecorder::set_algo(e, "ring");
    rec.end(e, nexar::Status::Ok());
  }
  const auto v = json_query(snapshot_json(), {
      "d['rank']", "d['world_size']", "d['current']", "len(d['comms'])",
      "[c['seq'] for c in d['comms'][0]['calls']]", "sorted({c['state'] for c in d['comms'][0]['calls']})",
      "d['comms'][0]['members']", "d['comms'][0]['calls'][0]['algo']", "d['comms'][0]['calls'][0]['dtype']",
      "d['comms'][0]['calls'][0]['op']", "d['comms'][0]['calls'][0]['t_end_us'] >= d['comms'][0]['calls'][0]['t_start_us'] > 0"});
  CHECK(v[0] == "1");
  CHECK(v[1] == "3");
  CHECK(v[2] == "\"outside nexar\"");
  CHECK(v[3] == "1");
  CHECK(v[4] == "[6, 7, 8, 9]");
  CHECK(v[5] == "[\"done\"]");
  CHECK(v[6] == "[0, 1, 2]");
  CHECK(v[7] == "\"ring\"");
  CHECK(v[8] == "\"float32\"");
  CHECK(v[9] == "\"sum\"");
  CHECK(v[10] == "true");
}

TEST_CASE("states: queued, running, waiting on a peer, failed with its error") {
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", "16");
  CommRecorder rec(7, {3, 5}, 0);
  rec.end(rec.begin_collective(allreduce(), 0), nexar::Status::Ok());
  CallRecord* failed = rec.begin_collective(allreduce(), 1);
  rec.end(failed, nexar::Status(NEXAR_ERR_MISMATCH, "rank 1 called \"broadcast\""));
  CallRecord* running = rec.begin_collective(allreduce(), 2);
  int64_t t0 = 0;
  rec.wait_begin(running, 1, &t0);
  const uint64_t q1 = rec.note_queued(allreduce());
  rec.note_queued(allreduce());
  auto v = json_query(snapshot_json(), {
      "[(c['seq'], c['state'], c['waiting_on']) for c in d['comms'][0]['calls']]",
      "d['comms'][0]['calls'][1]['error']", "d['current']"});
  CHECK(v[0] ==
        "[[0, \"done\", []], [1, \"failed\", []], [2, \"waiting\", [1]], [3, \"queued\", []], [4, \"queued\", []]]");
  CHECK(v[1].find("rank 1 called \\\"broadcast\\\"") != std::string::npos);
  CHECK(v[2] == "\"allreduce #2 on comm 0x7, waiting on rank 1\"");
  rec.wait_end(running, 1, t0);
  rec.end(running, nexar::Status::Ok());
  CallRecord* dequeued = rec.begin_collective(allreduce(), 3, q1);
  v = json_query(snapshot_json(), {
      "[(c['seq'], c['state']) for c in d['comms'][0]['calls']]",
      "d['comms'][0]['calls'][3]['t_queued_us'] > 0"});
  CHECK(v[0] == "[[0, \"done\"], [1, \"failed\"], [2, \"done\"], [3, \"running\"], [4, \"queued\"]]");
  CHECK(v[1] == "true");
  rec.end(dequeued, nexar::Status::Ok());
}

TEST_CASE("point-to-point calls are numbered per kind and end at their wait") {
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", "8");
  CommRecorder rec(9, {0, 1}, 0);
  const CallDesc s = p2p(CallKind::kSend, 1, 5, 2), r = p2p(CallKind::kRecv, 1, 5, 2);
  const P2pMark s0 = rec.begin_p2p(s, 1), r0 = rec.begin_p2p(r, 1), s1 = rec.begin_p2p(s, 1);
  rec.p2p_wait_begin(r0, 1);
  rec.end_p2p(s0, nexar::Status::Ok());
  rec.end_p2p(s1, nexar::Status(NEXAR_ERR_PEER_LOST, "peer 1 lost"));
  const auto v = json_query(snapshot_json(), {
      "[(c['kind'], c['seq'], c['state'], c['peer'], c['tag'], c['waiting_on']) for c in d['comms'][0]['calls']]"});
  CHECK(v[0] == "[[\"send\", 0, \"done\", 1, 5, []], [\"recv\", 0, \"waiting\", 1, 5, [1]], "
                "[\"send\", 1, \"failed\", 1, 5, []]]");
  rec.end_p2p(r0, nexar::Status::Ok());
}

TEST_CASE("a snapshot decodes the packed descriptors: names, root, peer, bytes") {
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", "8");
  CommRecorder rec(17, {0, 1, 2, 3}, 0);
  CallDesc g;
  g.word = pack_call(CallKind::kGather, NEXAR_INT32, -1, 2) | kPerRankBytesBit;
  g.count = 3;
  rec.end(rec.begin_collective(g, 0), nexar::Status::Ok());
  CallDesc b;
  b.word = pack_call(CallKind::kBroadcast, NEXAR_FLOAT16, -1, 1);
  b.count = 5;
  rec.end(rec.begin_collective(b, 1), nexar::Status::Ok());
  CallDesc agree;
  agree.word = pack_call(CallKind::kAgree, -1, -1, -1);
  rec.end_p2p(rec.begin_p2p(agree), nexar::Status::Ok());
  rec.end_p2p(rec.begin_p2p(p2p(CallKind::kRecv, NEXAR_ANY_SOURCE, 9, 4), -2), nexar::Status::Ok());
  const auto v = json_query(snapshot_json(), {
      "[(c['kind'], c['dtype'], c['op'], c['root'], c['peer'], c['tag'], c['count'], c['bytes']) "
      "for c in d['comms'][0]['calls']]"});
  CHECK(v[0] == "[[\"gather\", \"int32\", \"\", 2, -1, -1, 3, 48], "
                "[\"broadcast\", \"float16\", \"\", 1, -1, -1, 5, 10], "
                "[\"agree\", \"\", \"\", -1, -1, -1, 0, 0], "
                "[\"recv\", \"float64\", \"\", -1, -2, 9, 4, 32]]");
  for (int k = 0; k < kCallKindCount; ++k)
    CHECK(std::string(call_kind_name(static_cast<CallKind>(k))) != "invalid");
}

TEST_CASE("NEXAR_TRACE_BUFFER=0 turns the recorder off") {
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", "0");
  CommRecorder rec(11, {0}, 0);
  CHECK(rec.begin_collective(allreduce(), 0) == nullptr);
  CHECK(!rec.on());
  CHECK(rec.begin_p2p(p2p(CallKind::kSend, 0, 0, 1)).entry == nullptr);
  rec.end(nullptr, nexar::Status::Ok());  // every hook takes the null entry
  CHECK(json_query(snapshot_json(), {"d['comms']"})[0] == "[]");
  set_env("NEXAR_TRACE_BUFFER", nullptr);
}

TEST_CASE("a snapshot taken while another thread records parses and is in order") {
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", "64");
  CommRecorder rec(13, {0, 1}, 1);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (uint64_t s = 0; !stop.load(); ++s) {
      CallRecord* e = rec.begin_collective(allreduce(), s);
      int64_t t0 = 0;
      rec.wait_begin(e, 0, &t0);
      rec.wait_end(e, 0, t0);
      rec.end(e, nexar::Status::Ok());
    }
  });
  for (int i = 0; i < 5; ++i) {
    const auto v = json_query(snapshot_json(), {
        "all(b['seq'] > a['seq'] for a, b in zip(d['comms'][0]['calls'], d['comms'][0]['calls'][1:]))"});
    CHECK(v[0] == "true");
  }
  stop = true;
  writer.join();
}

TEST_CASE("NEXAR_TRACE writes a Perfetto trace: collectives, their waits, point to point") {
  const std::string dir = temp_path("dir");
  set_env("NEXAR_TRACE", dir.c_str());
  set_env("NEXAR_TRACE_BUFFER", "8");
  set_process(2, 4);
  {
    CommRecorder rec(21, {0, 1, 2, 3}, 2);
    CallRecord* e = rec.begin_collective(allreduce(), 0);
    CommRecorder::set_algo(e, "ring");
    int64_t t0 = 0;
    rec.wait_begin(e, 3, &t0);
    rec.wait_end(e, 3, t0);
    rec.end(e, nexar::Status::Ok());
    const CallDesc s = p2p(CallKind::kSend, 1, 0, 1);
    const P2pMark a = rec.begin_p2p(s, 1), b = rec.begin_p2p(s, 1);  // overlapping: two lanes
    rec.end_p2p(a, nexar::Status::Ok());
    rec.end_p2p(b, nexar::Status::Ok());
    rec.end(rec.begin_collective(allreduce(), 1), nexar::Status(NEXAR_ERR_TIMEOUT, "rank 3 did not arrive"));
  }
  REQUIRE(write_trace_file().ok());
  std::ifstream in(dir + "/nexar-trace-rank2.json");
  REQUIRE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto v = json_query(text, {
      "sorted((e['name'], e['args'].get('seq', e['args'].get('collective_seq'))) for e in d['traceEvents'] if e['ph'] == 'X')",
      "sorted({e['pid'] for e in d['traceEvents']})",
      "[e['args']['name'] for e in d['traceEvents'] if e['name'] == 'process_name']",
      "[e['args'].get('algorithm') for e in d['traceEvents'] if e['name'] == 'allreduce']",
      "[e['args']['error'] for e in d['traceEvents'] if e['name'] == 'allreduce' and e['args']['state'] == 'failed']",
      "len({e['tid'] for e in d['traceEvents'] if e.get('cat') == 'p2p'})",
      "[w['tid'] == c['tid'] and c['ts'] <= w['ts'] and w['ts'] + w['dur'] <= c['ts'] + c['dur'] + 0.001 "
      "for w in d['traceEvents'] if w['name'] == 'wait' for c in d['traceEvents'] if c['name'] == 'allreduce' and c['args']['seq'] == 0]"});
  CHECK(v[0] == "[[\"allreduce\", 0], [\"allreduce\", 1], [\"send\", 0], [\"send\", 1], [\"wait\", 0]]");
  CHECK(v[1] == "[2]");
  CHECK(v[2][0] == '[');
  CHECK(v[2].find("rank 2 (") != std::string::npos);
  CHECK(v[3] == "[\"ring\", null]");  // the failed one never chose (this test sets none)
  CHECK(v[4].find("rank 3 did not arrive") != std::string::npos);
  CHECK(v[5] == "2");
  CHECK(v[6] == "[true]");
  std::remove((dir + "/nexar-trace-rank2.json").c_str());
  rmdir(dir.c_str());
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", nullptr);
}

TEST_CASE("a trace written while a call runs shows it running, ended at the time of writing") {
  const std::string dir = temp_path("running");
  set_env("NEXAR_TRACE", dir.c_str());
  set_env("NEXAR_TRACE_BUFFER", "8");
  set_process(0, 2);
  CommRecorder rec(23, {0, 1}, 0);
  rec.end(rec.begin_collective(allreduce(), 0), nexar::Status::Ok());
  CallRecord* hung = rec.begin_collective(allreduce(), 1);
  const P2pMark recv = rec.begin_p2p(p2p(CallKind::kRecv, 1, 3, 1), 1);
  REQUIRE(write_trace_file().ok());
  std::ifstream in(dir + "/nexar-trace-rank0.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto v = json_query(text, {
      "sorted((e['name'], e['args']['seq']) for e in d['traceEvents'] if e['ph'] == 'X' and e['args'].get('state') == 'running')",
      "all(e['dur'] >= 0 for e in d['traceEvents'] if e['ph'] == 'X')"});
  CHECK(v[0] == "[[\"allreduce\", 1], [\"recv\", 0]]");
  CHECK(v[1] == "true");
  rec.end(hung, nexar::Status::Ok());
  rec.end_p2p(recv, nexar::Status::Ok());
  std::remove((dir + "/nexar-trace-rank0.json").c_str());
  rmdir(dir.c_str());
  set_env("NEXAR_TRACE", nullptr);
  set_env("NEXAR_TRACE_BUFFER", nullptr);
}
