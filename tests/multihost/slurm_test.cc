// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun inside a real SLURM allocation: munged, slurmctld and two slurmd (n1 in namespace
// mhA, n2 in mhB), started and stopped by this test (slurm_cluster.sh). nexrun takes the
// rank count and nodes from SLURM and starts its agents with one srun step.
#include <sys/stat.h>
#include <unistd.h>

#include <catch.hpp>
#include <fstream>

#include "launcher/nexrun_process.h"
#include "multihost/netns_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

namespace {

struct Cluster {
  NetnsTestbed bed;
  std::string dir, conf, why;
  bool ok = false;
  Cluster() {
    if (!NetnsTestbed::available(&why) || !bed.up(2, &why)) return;
    dir = make_temp_dir();
    std::string out, err;
    Ended e = run_program({SLURM_CLUSTER, "up", dir}, &out, &err, 30s);
    if (e.exit_code != 0 || out.find("SLURM_CONF=") == std::string::npos) {
      why = "could not start SLURM: " + out + err;
      return;
    }
    conf = dir + "/slurm.conf";
    ok = true;
  }
  ~Cluster() {
    if (!dir.empty()) {
      std::string out, err;
      run_program({SLURM_CLUSTER, "down", dir}, &out, &err, 30s);
      remove_tree(dir);
    }
  }
};

Cluster* cluster() {
  static Cluster c;
  if (!c.ok) WARN("skipped: " << c.why);
  return c.ok ? &c : nullptr;
}

std::string nexrun() { return std::getenv("NEXRUN"); }

}  // namespace

TEST_CASE("salloc -N2 -n4 nexrun prog: ranks from SLURM, agents by srun", "[slurm]") {
  Cluster* c = cluster();
  if (!c) return;
  std::string out, err;
  Ended e = run_program({"env", "SLURM_CONF=" + c->conf, "salloc", "-N2", "-n4", nexrun(), "--tag-output", MH_PROBE,
                         "collect"},
                        &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 4);
  CHECK(count_of(out, " of 4 node 1 ") >= 1);  // both nodes used
  CHECK(count_of(out, " of 4 node 0 ") >= 1);
  std::printf("salloc -N2 -n4 nexrun: %.2f s\n", e.seconds);
  // A failing rank fails the job step and the allocation's command.
  e = run_program({"env", "SLURM_CONF=" + c->conf, "salloc", "-N2", "-n2", nexrun(), "sh", "-c",
                   "exit $((NEXAR_RANK + 5))"},
                  &out, &err, 60s);
  INFO(out << err);
  CHECK((e.exit_code == 5 || e.exit_code == 6));
  CHECK(err.find("nexrun: rank ") != std::string::npos);
}

TEST_CASE("sbatch --wait of a job script that calls nexrun", "[slurm]") {
  Cluster* c = cluster();
  if (!c) return;
  const std::string script = c->dir + "/job.sh", output = c->dir + "/job.out";
  std::ofstream(script) << "#!/bin/sh\n#SBATCH -N 2\n#SBATCH -n 3\nexec " << nexrun() << " " << MH_PROBE
                        << " collect\n";
  std::string out, err;
  Ended e = run_program({"env", "SLURM_CONF=" + c->conf, "sbatch", "--wait", "-o", output, script}, &out, &err, 60s);
  std::ifstream f(output);
  std::string job_out((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  INFO(out << err << job_out);
  CHECK(e.exit_code == 0);
  CHECK(count_of(job_out, "ok rank") == 3);
}

TEST_CASE("srun prog without nexrun: ranks from SLURM, credentials from task 0", "[slurm]") {
  Cluster* c = cluster();
  if (!c) return;
  const std::string keys = c->dir + "/nexar";
  REQUIRE(mkdir(keys.c_str(), 0700) == 0);
  std::string out, err;
  Ended e = run_program({"env", "SLURM_CONF=" + c->conf, "NEXAR_SLURM_DIR=" + keys, "srun", "-N2", "-n4", MH_PROBE,
                         "collect"},
                        &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 4);
  std::printf("srun -N2 -n4 (direct): %.2f s\n", e.seconds);
  // Task 0 removed the step's keys when it exited.
  std::string left, ignored;
  run_program({"find", keys, "-mindepth", "1"}, &left, &ignored, 5s);
  CHECK(left.empty());
  // A key directory others can read is refused, naming it.
  REQUIRE(chmod(keys.c_str(), 0755) == 0);
  e = run_program({"env", "SLURM_CONF=" + c->conf, "NEXAR_SLURM_DIR=" + keys, "srun", "-N1", "-n2", MH_PROBE, "collect"},
                  &out, &err, 60s);
  CHECK(e.exit_code != 0);
  CHECK(out.find("mode 0700") != std::string::npos);
}
