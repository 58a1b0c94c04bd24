// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TRACE end to end: ranks under nexrun (shared memory, and QUIC) write their trace
// files, tools/nexar-trace-merge.py joins them, and the merged timeline holds every rank's
// collectives (the same sequence numbers everywhere), the failing one with its error, and
// the point-to-point calls (tests/trace/check_merged_trace.py).
#include <catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

namespace {

void run_traced(int np, const std::vector<std::string>& env) {
  const std::string dir = "/tmp/nexar-trace-e2e-" + std::to_string(getpid()) + "-" + std::to_string(np);
  std::vector<std::string> e = env;
  e.push_back("NEXAR_TRACE=" + dir);
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", std::to_string(np), TRACE_PROBE}, &out, &err, 90s, e);
  INFO("np " << np << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(end.exit_code == 0);
  REQUIRE(launcher_test::count_of(out, "trace_probe ok") == static_cast<size_t>(np));
  const std::string merged = dir + "/merged.json";
  std::string mout, merr;
  auto m = launcher_test::run_program({"/usr/bin/python3", TRACE_MERGE, dir, "-o", merged}, &mout, &merr, 60s);
  INFO("merge: " << mout << merr);
  REQUIRE(m.exit_code == 0);
  std::string cout_, cerr_;
  auto c = launcher_test::run_program({"/usr/bin/python3", CHECK_TRACE, merged, std::to_string(np)}, &cout_, &cerr_, 60s);
  INFO("check: " << cout_ << cerr_);
  CHECK(c.exit_code == 0);
  CHECK(cout_ == "ok\n");
  std::string rm_out, rm_err;
  launcher_test::run_program({"/bin/rm", "-rf", dir}, &rm_out, &rm_err, 20s);
}

}  // namespace

TEST_CASE("NEXAR_TRACE on 3 ranks over shared memory: merged timeline", "[trace]") { run_traced(3, {}); }

TEST_CASE("NEXAR_TRACE on 2 ranks over QUIC: merged timeline", "[trace]") {
  run_traced(2, {"NEXAR_TRANSPORT=quic"});
}

namespace {

// The X events of a trace file as "name state" lines, sorted ("" when the file is absent).
std::string events_of(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0) return "";
  std::string out, err;
  launcher_test::run_program({"/usr/bin/python3", "-c",
                              "import json,sys; d=json.load(open(sys.argv[1])); "
                              "print('\\n'.join(sorted(e['name'] + ' ' + e['args'].get('state', '') "
                              "for e in d['traceEvents'] if e['ph'] == 'X' and e['name'] != 'wait')))",
                              path},
                             &out, &err, 30s);
  return out + err;
}

// Runs trace_probe <mode> on np ranks, which must fail; returns the trace directory.
std::string run_failing(const std::string& mode, int np) {
  const std::string dir = "/tmp/nexar-trace-" + mode + "-" + std::to_string(getpid());
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", std::to_string(np), TRACE_PROBE, mode}, &out, &err, 60s,
                                       {"NEXAR_TRACE=" + dir});
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  CHECK(end.exit_code != 0);
  return dir;
}

}  // namespace

TEST_CASE("recorded: a blocking collective queued behind another, agree, revoke, shrink", "[trace]") {
  const std::string dir = "/tmp/nexar-trace-calls-" + std::to_string(getpid());
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", "2", TRACE_PROBE, "calls"}, &out, &err, 60s, {"NEXAR_TRACE=" + dir});
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(end.exit_code == 0);
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r);
    const std::string ev = events_of(dir + "/nexar-trace-rank" + std::to_string(r) + ".json");
    CHECK(launcher_test::count_of(ev, "agree done") == 2);
    CHECK(launcher_test::count_of(ev, "revoke done") == 1);
    CHECK(launcher_test::count_of(ev, "shrink done") == 1);
    CHECK(launcher_test::count_of(ev, "barrier done") >= 1);  // on the shrunk communicator
  }
  // Rank 0's blocking allreduce waited behind its iallreduce (rank 1 came 0.5 s late).
  std::string q, qerr;
  launcher_test::run_program({"/usr/bin/python3", "-c",
                              "import json,sys; d=json.load(open(sys.argv[1])); "
                              "print([e['args']['seq'] for e in d['traceEvents'] if e.get('name') == 'allreduce' "
                              "and e['args'].get('queued_us', 0) > 100000])",
                              dir + "/nexar-trace-rank0.json"},
                             &q, &qerr, 30s);
  CHECK(q == "[2]\n");
  std::string o, e;
  launcher_test::run_program({"/bin/rm", "-rf", dir}, &o, &e, 20s);
}

TEST_CASE("NEXAR_TRACE files survive abort() and nexrun's SIGTERM", "[trace]") {
  const std::string dir = run_failing("signals", 3);
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r);
    CHECK(events_of(dir + "/nexar-trace-rank" + std::to_string(r) + ".json") == "allreduce done\n");
  }
  std::string o, e;
  launcher_test::run_program({"/bin/rm", "-rf", dir}, &o, &e, 20s);
}

TEST_CASE("NEXAR_TRACE files are written when a communicator breaks, before the rank _exit()s", "[trace]") {
  const std::string dir = run_failing("failure", 2);
  CHECK(events_of(dir + "/nexar-trace-rank0.json") == "allreduce done\nbroadcast failed\n");
  CHECK(events_of(dir + "/nexar-trace-rank1.json") == "allreduce done\nallreduce failed\n");
  std::string o, e;
  launcher_test::run_program({"/bin/rm", "-rf", dir}, &o, &e, 20s);
}

TEST_CASE("one rank: each call records the algorithm that ran, one_rank unless NEXAR_ALGO forces another",
          "[trace]") {
  const std::string dir = "/tmp/nexar-trace-one-" + std::to_string(getpid());
  // The collectives' "name algorithm" lines of the rank's trace, sorted.
  const auto run = [&](const std::vector<std::string>& env) {
    std::vector<std::string> e = env;
    e.push_back("NEXAR_TRACE=" + dir);
    std::string out, err;
    auto end = launcher_test::run_nexrun({"-np", "1", TRACE_PROBE, "one"}, &out, &err, 60s, e);
    INFO("stdout:\n" << out << "\nstderr:\n" << err);
    REQUIRE(end.finished);
    REQUIRE(end.exit_code == 0);
    REQUIRE(launcher_test::count_of(out, "trace_probe ok") == 1);
    std::string algos, aerr;
    launcher_test::run_program({"/usr/bin/python3", "-c",
                                "import json,sys; d=json.load(open(sys.argv[1])); "
                                "print('\\n'.join(sorted(e['name'] + ' ' + e['args'].get('algorithm', '-') "
                                "for e in d['traceEvents'] if e['ph'] == 'X' and 'collective_seq' not in e['args'] "
                                "and e['name'] in ('allreduce', 'allgather', 'barrier'))))",
                                dir + "/nexar-trace-rank0.json"},
                               &algos, &aerr, 30s);
    std::string o, rerr;
    launcher_test::run_program({"/bin/rm", "-rf", dir}, &o, &rerr, 20s);
    return algos + aerr;
  };
  CHECK(run({}) ==
        "allgather one_rank\nallreduce one_rank\nallreduce one_rank\nbarrier one_rank\nbarrier one_rank\n");
  CHECK(run({"NEXAR_ALGO=allreduce:ring,barrier:dissemination"}) ==
        "allgather one_rank\nallreduce ring\nallreduce ring\nbarrier dissemination\nbarrier dissemination\n");
}
