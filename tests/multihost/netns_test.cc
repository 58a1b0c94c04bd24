// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun across hosts that are network namespaces of this machine, with the launch agent
// `nsenter --net=/var/run/netns/{host}`: collectives and splits across hosts, host files,
// MPMD, output options, start-up errors, a link cut mid-job, and a launcher killed mid-job.
#include <signal.h>
#include <unistd.h>

#include <catch.hpp>
#include <fstream>
#include <thread>

#include "launcher/nexrun_process.h"
#include "multihost/shared_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

namespace {

NetnsTestbed* testbed() { return shared_testbed(3); }

std::string marker() { return "mh-marker-" + std::to_string(getpid()); }

std::vector<std::string> with_agent(std::vector<std::string> args) {
  args.insert(args.begin(), {"--launch-agent", NetnsTestbed::agent_template()});
  return args;
}

bool none_left(const std::string& text) {
  for (int i = 0; i < 300; ++i) {
    if (processes_with(text).empty()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

bool no_probe_left() { return none_left(marker()); }

}  // namespace

TEST_CASE("collectives and splits across two and three namespace hosts", "[multihost]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  std::string out, err;
  Ended e = run_nexrun(with_agent({"-H", "mhA:2,mhB:2", MH_PROBE, "collect", marker()}), &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 4);
  CHECK(count_of(out, "node 0 local 0/2") == 1);
  CHECK(count_of(out, "node 1 local 1/2") == 1);
  std::printf("2 hosts x 2 ranks, collectives and splits: %.2f s\n", e.seconds);

  // Three hosts, round robin: ranks 0,3 / 1,4 / 2 (uneven hosts, split sizes differ).
  e = run_nexrun(with_agent({"-H", "mhA:2,mhB:2,mhC:2", "-np", "5", "--map-by", "node", "--display-map", MH_PROBE,
                             "collect", marker()}),
                 &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 5);
  CHECK(err.find("host mhA (2 slots): ranks 0 3") != std::string::npos);
  CHECK(err.find("host mhC (2 slots): ranks 2") != std::string::npos);
  CHECK(out.find("hello rank 4 of 5 node 1 local 1/2") != std::string::npos);
  CHECK(no_probe_left());
}

TEST_CASE("hostfile, npernode, MPMD and -x across hosts", "[multihost]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  const std::string dir = make_temp_dir();
  const std::string hostfile = dir + "/hosts";
  std::ofstream(hostfile) << "# two hosts\nmhA slots=4   # first\n\nmhB:4\n";
  std::string out, err;
  // --npernode 2 on 4-slot hosts; MPMD: two programs (both join the world), 1 + 3 ranks.
  Ended e = run_nexrun(with_agent({"--hostfile", hostfile, "--npernode", "2", "-x", "MH_FORWARDED=yes", "--tag-output",
                                   "-np", "1", MH_PROBE, "collect", marker(), ":", "-np", "3", MH_PROBE, "collect",
                                   marker() + "-b"}),
                       &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 4);
  CHECK(out.find("[1,2]<stdout>: hello rank 2 of 4 node 1 local 0/2") != std::string::npos);
  // -x reaches remote ranks: a job where every rank prints the variable.
  e = run_nexrun(with_agent({"-H", "mhA,mhB", "-x", "MH_FORWARDED=yes-" + marker(), "sh", "-c", "echo got=$MH_FORWARDED"}),
                 &out, &err, 30s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "got=yes-" + marker()) == 2);
  // Bad host lists are usage errors naming the problem.
  std::ofstream(hostfile) << "mhA slots=two\n";
  e = run_nexrun(with_agent({"--hostfile", hostfile, MH_PROBE}), &out, &err, 10s);
  CHECK(e.exit_code == 2);
  CHECK(err.find("line 1") != std::string::npos);
  e = run_nexrun(with_agent({"-H", "mhA:2", "-np", "3", MH_PROBE}), &out, &err, 10s);
  CHECK(e.exit_code == 2);
  CHECK(err.find("3 ranks asked") != std::string::npos);
  remove_tree(dir);
}

TEST_CASE("output files per rank and timestamps from remote hosts", "[multihost]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  const std::string dir = make_temp_dir();
  std::string out, err;
  Ended e = run_nexrun(with_agent({"-H", "mhA,mhB", "--output-filename", dir + "/out", "--timestamp-output", "sh", "-c",
                                   "echo line-$NEXAR_RANK; echo err-$NEXAR_RANK >&2"}),
                       &out, &err, 30s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(out.empty());
  for (int r = 0; r < 2; ++r) {
    std::ifstream f(dir + "/out/1/rank." + std::to_string(r) + "/stdout");
    std::string line;
    std::getline(f, line);
    CHECK(line.find("line-" + std::to_string(r)) != std::string::npos);
    CHECK(line.rfind("[20", 0) == 0);  // "[2026-..T..] line-0"
    std::ifstream g(dir + "/out/1/rank." + std::to_string(r) + "/stderr");
    std::getline(g, line);
    CHECK(line.find("err-" + std::to_string(r)) != std::string::npos);
  }
  remove_tree(dir);
}

TEST_CASE("an unreachable host, a failing agent or a missing program is one line, within seconds", "[multihost]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  std::string out, err;
  // No such namespace: the agent command fails.
  Ended e = run_nexrun(with_agent({"-H", "mhA,mhZ", MH_PROBE, "collect", marker()}), &out, &err, 20s);
  CHECK(e.exit_code == 1);
  CHECK(e.seconds < 5);
  CHECK(err.find("host mhZ:") != std::string::npos);
  CHECK(err.find("/var/run/netns/mhZ") != std::string::npos);
  // An agent that never answers (a host that swallows the connection): bounded by
  // NEXAR_AGENT_TIMEOUT.
  e = run_nexrun({"--launch-agent", "sleep 30; true", "-H", "mhA", MH_PROBE}, &out, &err, 20s,
                 {"NEXAR_AGENT_TIMEOUT=2"});
  CHECK(e.exit_code == 1);
  CHECK(e.seconds < 6);
  CHECK(err.find("host mhA: launch agent did not answer within 2 s") != std::string::npos);
  // Missing program on the hosts: the shell's 127, the host named.
  e = run_nexrun(with_agent({"-H", "mhA,mhB", "/nonexistent/nexar-program"}), &out, &err, 20s);
  CHECK(e.exit_code == 127);
  CHECK(e.seconds < 5);
  CHECK((err.rfind("nexrun: host mhA: cannot run '/nonexistent/nexar-program'", 0) == 0 ||
         err.rfind("nexrun: host mhB: cannot run '/nonexistent/nexar-program'", 0) == 0));
  CHECK(count_of(err, "\n") == 1);
  CHECK(no_probe_left());
}

TEST_CASE("a host cut off mid-job fails the job with a named error, no process left", "[multihost]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  NexrunProcess job(with_agent({"-H", "mhA:2,mhB:2", "--tag-output", MH_PROBE, "loop", marker()}),
                    {"NEXAR_PEER_TIMEOUT=3"});
  REQUIRE(job.wait_for_stdout("looping rank", 4, 30s));
  const auto cut = std::chrono::steady_clock::now();
  REQUIRE(bed->set_link("mhB", false));
  Ended e = job.wait(40s);
  const double after_cut = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  bed->set_link("mhB", true);
  INFO(job.out() << job.err());
  CHECK(e.finished);
  CHECK(e.exit_code == 3);  // the probe's status for a failed call
  CHECK(after_cut < 15);
  CHECK(job.out().find("NEXAR_ERR_PEER_LOST") != std::string::npos);
  CHECK(job.err().find("exited with status 3") != std::string::npos);
  std::printf("link cut -> job ended in %.2f s (NEXAR_PEER_TIMEOUT=3)\n", after_cut);
  CHECK(no_probe_left());
}

TEST_CASE("a launcher killed mid-job leaves no rank on any host", "[multihost]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  NexrunProcess job(with_agent({"-H", "mhA:2,mhB:1", MH_PROBE, "loop", marker()}));
  REQUIRE(job.wait_for_stdout("looping rank", 3, 30s));
  CHECK(processes_with(marker()).size() >= 3);
  job.signal(SIGKILL);
  job.wait(5s);
  CHECK(no_probe_left());  // the agents saw EOF and stopped their ranks
  CHECK(none_left(" --agent "));
}

TEST_CASE("a rank killed or stopped on another host is seen by every survivor within the peer timeout",
          "[multihost][detect]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  // The last rank (mhB) is the victim (tests/integration/detect_probe.cc). Alone on mhB,
  // the others reach it across hosts only; with a second rank on mhB, that one reaches it
  // over shared memory and reports the loss to the rest.
  for (const std::string hosts : {"mhA:2,mhB:1", "mhA:2,mhB:2"}) {
    for (const std::string mode : {"kill", "stop"}) {
      std::string out, err;
      Ended e = run_nexrun(with_agent({"-H", hosts, "--no-kill", DETECT_PROBE, mode, marker()}), &out, &err, 60s,
                           {"NEXAR_PEER_TIMEOUT=3", "NEXAR_TIMEOUT=30"});
      INFO(hosts << " " << mode << "\n" << out << err);
      const size_t survivors = hosts == "mhA:2,mhB:1" ? 2 : 3;
      CHECK(e.finished);
      CHECK(count_of(out, "lost NEXAR_ERR_PEER_LOST after ") == survivors);
      CHECK(count_of(out, "survivors ok") == survivors);
      const std::vector<double> s = decimals_after(out, "lost NEXAR_ERR_PEER_LOST after ");
      for (double t : s) {
        CHECK(t <= 3.0 + 1.0);
        if (mode == "stop") CHECK(t >= 2.5);
      }
      std::printf("%s on %s (NEXAR_PEER_TIMEOUT=3): detected after", mode.c_str(), hosts.c_str());
      for (double t : s) std::printf(" %.2f", t);
      std::printf(" s\n");
      CHECK(no_probe_left());
    }
  }
}
