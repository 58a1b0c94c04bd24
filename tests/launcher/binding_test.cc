// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun's binding plan (launcher/binding.h) on made-up topologies, the union of affinity
// masks every rank computes alike (core/cores.h), and --bind-to / --report-bindings on
// real ranks of this host.
#include <catch.hpp>

#include <unistd.h>

#include "core/cores.h"
#include "launcher/binding.h"
#include "launcher/nexrun_process.h"

using namespace nexar::launcher;

namespace {

// sockets x cores_per_socket cores of threads CPUs each, numbered like Linux does
// (a core's second thread after every core's first).
Topology made_up(int sockets, int cores_per_socket, int threads) {
  Topology t;
  const int ncores = sockets * cores_per_socket;
  for (int c = 0; c < ncores; ++c) {
    t.cores.emplace_back();
    for (int h = 0; h < threads; ++h) t.cores.back().push_back(c + h * ncores);
  }
  for (int s = 0; s < sockets; ++s) {
    t.sockets.emplace_back();
    for (int c = 0; c < cores_per_socket; ++c) t.sockets.back().push_back(s * cores_per_socket + c);
  }
  return t;
}

}  // namespace

TEST_CASE("binding plans: Open MPI's defaults, explicit policies, refusals", "[launcher][binding]") {
  const Topology t = made_up(2, 4, 2);  // 8 cores, 16 CPUs
  std::vector<RankBinding> b;
  REQUIRE(plan_bindings(BindTo::DEFAULT, 2, t, &b).ok());  // np <= 2: a core each
  CHECK(b[0].cpus == std::vector<int>{0, 8});
  CHECK(b[1].cpus == std::vector<int>{1, 9});
  CHECK(describe_binding(1, b[1], t) == "rank 1 bound to core 1 (CPUs 1,9)");
  REQUIRE(plan_bindings(BindTo::DEFAULT, 4, t, &b).ok());  // more: a socket each, round robin
  CHECK(b[0].what == "socket 0");
  CHECK(b[1].what == "socket 1");
  CHECK(b[2].cpus == std::vector<int>{0, 8, 1, 9, 2, 10, 3, 11});
  REQUIRE(plan_bindings(BindTo::DEFAULT, 9, t, &b).ok());  // more ranks than cores: not bound
  CHECK(b[8].cpus.empty());
  CHECK(describe_binding(0, b[0], t) == "rank 0 not bound (CPUs 0-15)");
  REQUIRE(plan_bindings(BindTo::NONE, 2, t, &b).ok());
  CHECK(b[0].cpus.empty());
  const nexar::Status st = plan_bindings(BindTo::CORE, 9, t, &b);
  CHECK(st.code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(st.message().find("9 ranks") != std::string::npos);
  CHECK(st.message().find("8 cores") != std::string::npos);
  REQUIRE(plan_bindings(BindTo::SOCKET, 9, t, &b).ok());  // sockets take any number
  CHECK(b[8].what == "socket 0");
  BindTo p;
  CHECK(parse_bind_to("hwthread", &p).code() == NEXAR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("the union of affinity masks is the same number whatever each rank's own mask", "[launcher][binding]") {
  CHECK(nexar::cpus_in_union({"1", "2"}) == 2);
  CHECK(nexar::cpus_in_union({"3", "2", "1"}) == 2);
  CHECK(nexar::cpus_in_union({"f0", "0f"}) == 8);
  CHECK(nexar::cpus_in_union({"100000000", "1"}) == 2);  // CPU 32 and CPU 0
  CHECK(nexar::cpus_in_union({"", "zz", "1"}) == 1);      // unreadable masks add nothing
  CHECK(nexar::cpus_in_union({nexar::affinity_hex()}) >= 1);
}

TEST_CASE("--bind-to core binds each rank to its own core and --report-bindings says so", "[launcher][binding]") {
  const Topology here = this_host();
  if (here.cores.size() < 2) {
    WARN("skipped: nexrun may use fewer than 2 cores here");
    return;
  }
  std::string out, err;
  launcher_test::Ended e = launcher_test::run_nexrun(
      {"-np", "2", "--bind-to", "core", "--report-bindings", "sh", "-c",
       "echo rank$NEXAR_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"},
      &out, &err);
  INFO(out << err);
  REQUIRE(e.exit_code == 0);
  for (int r = 0; r < 2; ++r) {
    std::string cpus;
    for (size_t i = 0; i < here.cores[static_cast<size_t>(r)].size(); ++i)
      cpus += (i ? "," : "") + std::to_string(here.cores[static_cast<size_t>(r)][i]);
    CHECK(err.find("rank " + std::to_string(r) + " bound to core " + std::to_string(r)) != std::string::npos);
    // /proc prints ranges ("0-1"); one thread per core prints the one CPU.
    if (here.cores[static_cast<size_t>(r)].size() == 1)
      CHECK(out.find("rank" + std::to_string(r) + " " + cpus + "\n") != std::string::npos);
  }
  // --bind-to takes its value wherever it stands among the options.
  e = launcher_test::run_nexrun({"--bind-to", "none", "-np", "2", "true"}, &out, &err);
  CHECK(e.exit_code == 0);
  const std::string too_many = std::to_string(here.cores.size() + 1);
  e = launcher_test::run_nexrun({"-np", too_many, "--bind-to", "core", "true"}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("--bind-to core: " + too_many + " ranks") != std::string::npos);
}
