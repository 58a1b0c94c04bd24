// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Fault tolerance end to end (tests/ft/ft_probe.cc): a rank SIGKILLed inside a collective,
// between calls, inside the agreement (by the probe, and at the library's fault point
// NEXAR_FAULT_KILL=<rank>:agreement), inside the shrink (cascading), two at once, the
// coordinator (rank 0) among them; a revoke that reaches ranks blocked in a collective.
// Shared memory (one host) and QUIC (NEXAR_TRANSPORT=quic). Every survivor must print ok.
#include <algorithm>
#include <catch.hpp>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

namespace {

struct Run {
  int np;
  std::string scenario;
  std::string victims;  // "1" or "0,2"; empty: none
  bool quic = false;
  std::string fault_kill;  // NEXAR_FAULT_KILL (core/fault.h): a victim killed by the library
};

void run(const Run& r) {
  std::vector<std::string> args = {"--enable-recovery", "-np", std::to_string(r.np), FT_PROBE, r.scenario};
  if (!r.victims.empty()) args.push_back(r.victims);
  // The default peer timeout: a killed rank on this host is seen at once on both
  // transports, and a short one can declare a rank that the loaded machine starved failed.
  // A survivor asleep in a shared-slot wait is woken by the loss or a peer's abort; it
  // once slept on to its one-second check.
  std::vector<std::string> env = {"NEXAR_TIMEOUT=60", "FT_PROBE_DETECT_S=0.75"};
  if (r.quic) env.push_back("NEXAR_TRANSPORT=quic");
  if (!r.fault_kill.empty()) env.push_back("NEXAR_FAULT_KILL=" + r.fault_kill);
  std::string out, err;
  auto end = launcher_test::run_nexrun(args, &out, &err, 90s, env);
  const size_t victims = r.victims.empty() ? 0 : 1 + std::count(r.victims.begin(), r.victims.end(), ',');
  INFO("np " << r.np << " " << r.scenario << " victims " << r.victims << (r.quic ? " quic" : " shm")
             << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(launcher_test::count_of(out, r.scenario + " ok") == static_cast<size_t>(r.np) - victims);
  REQUIRE(launcher_test::count_of(err, "check failed") == 0);
  if (!r.fault_kill.empty()) {  // the library's kill point fired, at the named point
    const std::string point = r.fault_kill.substr(r.fault_kill.find(':') + 1);
    REQUIRE(launcher_test::count_of(err, "NEXAR_FAULT_KILL: rank " + r.victims + " kills itself at " + point) == 1);
  }
  // The survivors finished the work: the job succeeded.
  REQUIRE(end.exit_code == 0);
}

}  // namespace

TEST_CASE("revoke reaches ranks blocked in a collective and a receive; agree and shrink on the revoked world",
          "[ft]") {
  run({4, "revoke", "", false});
  run({3, "revoke", "", true});
}

TEST_CASE("a rank killed inside a collective: survivors shrink to a full communicator", "[ft]") {
  run({4, "kill_coll", "2", false});
  run({4, "kill_coll", "0", false});  // the agreement's coordinator
  run({3, "kill_coll", "1", true});
}

TEST_CASE("a rank killed between calls", "[ft]") { run({4, "kill_between", "3", false}); }

TEST_CASE("the coordinator killed inside the agreement: every survivor leaves with the same decision", "[ft]") {
  run({5, "kill_agree", "0", false});
  run({4, "kill_agree", "1", true});
}

TEST_CASE("a rank killed at the agreement's fault point after its vote: the survivors agree and shrink",
          "[ft]") {
  run({4, "fault_agree", "0", false, "0:agreement"});  // the coordinator
  run({3, "fault_agree", "2", true, "2:agreement"});
}

TEST_CASE("cascading: a second rank dies inside the shrink", "[ft]") { run({5, "kill_shrink", "1,0", false}); }

TEST_CASE("two ranks killed at once", "[ft]") { run({6, "kill_coll", "1,4", false}); }

TEST_CASE("a split, a dup and a shrunk communicator recover too", "[ft]") {
  run({5, "kill_sub", "3", false});
  run({4, "kill_sub", "2", true});
}

TEST_CASE("the C++ wrapper: revoke, agree, failed_ranks, shrink", "[ft]") { run({4, "cpp", "1", false}); }
