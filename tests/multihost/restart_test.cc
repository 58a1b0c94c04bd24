// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Restarts across namespace hosts (nsenter agents): --max-restarts starts new agents and a
// new rendezvous per attempt, --respawn makes the agent start one rank again, and
// nexar_comm_rebuild joins the survivors and a replacement on another host.
#include <unistd.h>

#include <catch.hpp>

#include "launcher/nexrun_process.h"
#include "multihost/shared_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

namespace {

NetnsTestbed* testbed() { return shared_testbed(2); }

std::vector<std::string> on_two_hosts(std::vector<std::string> args) {
  args.insert(args.begin(), {"--launch-agent", NetnsTestbed::agent_template(), "-H", "mhA:2,mhB:2"});
  return args;
}

}  // namespace

TEST_CASE("--max-restarts and --respawn across two hosts", "[multihost][restart]") {
  if (!testbed()) return;
  std::string out, err;
  // Rank 3 (on mhB) fails in attempt 0; attempt 1 succeeds everywhere.
  Ended e = run_nexrun(on_two_hosts({"--max-restarts", "1", probe_path(), "restart", "3", "3", "1", "400"}), &out,
                       &err, 60s);
  {
    INFO(out << err);
    CHECK(e.exit_code == 0);
    for (int r = 0; r < 4; ++r) CHECK(count_of(out, "restart " + std::to_string(r) + " count=1 torch=1 ") == 1);
    CHECK(count_of(err, "restarting every rank (restart 1 of 1)") == 1);
  }
  // Rank 2 (on mhB) fails once; the agent there starts its replacement; the rest run on.
  e = run_nexrun(on_two_hosts({"--respawn", "1", probe_path(), "restart", "2", "3", "1", "1500"}), &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "restart 2 count=1 torch=1 ") == 1);
  CHECK(count_of(out, "restart 0 ") == 1);
  CHECK(count_of(err, "starting replacement 1 of rank 2 (1 of 1 in the job)") == 1);
}

TEST_CASE("rebuild with a replacement on the other host", "[multihost][rebuild]") {
  if (!testbed()) return;
  std::string out, err;
  // Rank 1 (mhA) dies; its replacement joins the survivors on mhA and mhB.
  Ended e = run_nexrun(on_two_hosts({"--respawn", "1", "-x", "NEXAR_PEER_TIMEOUT=1", REBUILD_PROBE, "respawn", "1"}),
                       &out, &err, 90s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "replacement 1 incarnation 1 joined") == 1);
  CHECK(count_of(out, "rebuilt ") == 3);
  CHECK(count_of(out, " ok\n") == 4);
}

TEST_CASE("recovery times across two hosts: shrink, rebuild and gang restart", "[multihost][rebuild]") {
  if (!testbed()) return;
  // nexar-recovery-bench kills rank 3 (on mhB) inside an allreduce and prints one line.
  const std::string dir = make_temp_dir();
  const std::vector<std::vector<std::string>> ways = {{"--enable-recovery", "", RECOVERY_BENCH, "shrink"},
                                                      {"--respawn", "1", RECOVERY_BENCH, "rebuild"},
                                                      {"--max-restarts", "1", RECOVERY_BENCH, "gang", dir + "/stamp"}};
  for (const std::vector<std::string>& way : ways) {
    std::vector<std::string> args = {"-x", "NEXAR_PEER_TIMEOUT=1"};
    for (const std::string& a : way)
      if (!a.empty()) args.push_back(a);
    std::string out, err;
    Ended e = run_nexrun(on_two_hosts(args), &out, &err, 90s);
    INFO(out << err);
    CHECK(e.exit_code == 0);
    CHECK(count_of(out, "np 4  ") == 1);
    std::printf("2 hosts x 2 ranks, %s: %s", way[3].c_str(), out.c_str());
  }
  remove_tree(dir);
}
